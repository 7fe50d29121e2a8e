import { CloseOutlined, MessageOutlined, PlusOutlined } from '@ant-design/icons';
import type { RobotAsk, RobotQuestion } from '@parley/protocol';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Button, Drawer, Empty, Space, Statistic, Table, type TableColumnType, Tooltip, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { call } from '../../lib/api';
import { toastSuccess } from '../../lib/feedback';
import { formatDateTime } from '../../lib/format';
import { useSettings } from '../../stores/settings';
import { CardList, useCardLayout } from '../shared/CardList';
import { ASK_AREA } from './queries';

const PAGE_SIZE = 10;

/** Keyed under the knowledge base's area: a pair saved or deleted refreshes these lists too. */
const questionsKey = (pairId: number, pageNo: number) => [ASK_AREA, 'questions', pairId, pageNo] as const;

/** The visitors' questions that reached a pair, or (pair 0) those the robot could not answer, a page at a time. */
function useQuestions(pairId: number, pageNo: number, enabled = true) {
  return useQuery({
    queryKey: questionsKey(pairId, pageNo),
    queryFn: () => call('GET /api/robot/question/getList', { pairId, pageNo, pageSize: PAGE_SIZE }),
    placeholderData: keepPreviousData,
    enabled,
  });
}

/** How many unanswered questions wait (for the tab's count). */
export function useUnansweredCount(): number | undefined {
  return useQuestions(0, 1).data?.total;
}

function QuestionTable(props: {
  pairId: number;
  testId: string;
  actions?: (question: RobotQuestion) => React.ReactNode;
  enabled?: boolean;
}) {
  const { t } = useTranslation();
  const mobile = useSettings((state) => state.device === 'mobile');
  const [pageNo, setPageNo] = useState(1);
  const query = useQuestions(props.pairId, pageNo, props.enabled);
  const cards = useCardLayout();
  const columns: TableColumnType<RobotQuestion>[] = [
    {
      key: 'text',
      dataIndex: 'text',
      title: t('robots.questions.text'),
      render: (text: string) => <Typography.Text data-testid="robot-question-text">{text}</Typography.Text>,
    },
    { key: 'times', dataIndex: 'times', title: t('robots.questions.times'), width: mobile ? 64 : 90, align: 'right' },
    {
      key: 'last_at',
      dataIndex: 'last_at',
      title: t('robots.questions.lastAsked'),
      width: mobile ? 110 : 180,
      render: (value: string) => formatDateTime(value),
    },
  ];
  if (props.actions) {
    const actions = props.actions;
    columns.push({ key: 'actions', title: t('common.actions'), width: mobile ? 120 : 220, render: (_, question) => actions(question) });
  }
  const empty = t(props.pairId === 0 ? 'robots.unanswered.empty' : 'robots.questions.empty');
  const pagination = {
    current: pageNo,
    pageSize: PAGE_SIZE,
    total: query.data?.total ?? 0,
    onChange: setPageNo,
    hideOnSinglePage: true,
    size: 'small' as const,
  };
  // On a phone each question is a card, its actions at the foot: a table would scroll them out of sight.
  if (cards) {
    return (
      <CardList<RobotQuestion>
        rows={query.data?.list ?? []}
        rowKey={(question) => question.id}
        fields={[
          {
            key: 'text',
            label: t('robots.questions.text'),
            render: (question) => <Typography.Text data-testid="robot-question-text">{question.text}</Typography.Text>,
          },
          { key: 'times', label: t('robots.questions.times'), render: (question) => question.times },
          { key: 'last_at', label: t('robots.questions.lastAsked'), render: (question) => formatDateTime(question.last_at) },
        ]}
        {...(props.actions ? { actions: props.actions } : {})}
        pagination={pagination}
        loading={query.isFetching}
        empty={empty}
        testId={props.testId}
      />
    );
  }
  return (
    <Table<RobotQuestion>
      size="small"
      rowKey="id"
      loading={query.isFetching}
      dataSource={query.data?.list ?? []}
      columns={columns}
      scroll={mobile ? { x: 520 } : undefined}
      locale={{ emptyText: <Empty description={empty} /> }}
      pagination={pagination}
      data-testid={props.testId}
    />
  );
}

/** A pair's row action: the questions visitors asked that the robot answered with this pair. */
export function PairQuestionsButton({ pair }: { pair: RobotAsk }) {
  const { t } = useTranslation();
  const mobile = useSettings((state) => state.device === 'mobile');
  const [open, setOpen] = useState(false);
  return (
    <>
      <Button type="link" size="small" icon={<MessageOutlined />} onClick={() => setOpen(true)} data-testid="robot-row-asked">
        {t('robots.questions.button')}
      </Button>
      <Drawer title={t('robots.questions.title')} open={open} onClose={() => setOpen(false)} destroyOnHidden size={mobile ? '100%' : 560}>
        <Typography.Paragraph type="secondary">
          {t('robots.questions.pair')}: <Typography.Text strong>{pair.questions[0]}</Typography.Text>
        </Typography.Paragraph>
        <QuestionTable pairId={pair.id} enabled={open} testId="robot-pair-questions" />
      </Drawer>
    </>
  );
}

/**
 * The questions the robot could not answer, most asked first: each may become a pair in one step (the
 * pair editor opens with it as the first phrasing; once saved it leaves this list) or be set aside.
 */
export function UnansweredList({ onAdd }: { onAdd: (question: RobotQuestion) => void }) {
  const { t } = useTranslation();
  const client = useQueryClient();
  const dismiss = useMutation({
    mutationFn: (id: number) => call('POST /api/robot/question/dismiss', { ids: [id] }),
    onSuccess: () => {
      toastSuccess(t('robots.unanswered.dismissed'));
      return client.invalidateQueries({ queryKey: [ASK_AREA, 'questions'] });
    },
  });
  return (
    <div className="page-card robot-unanswered" data-testid="robot-unanswered">
      <Typography.Paragraph type="secondary">{t('robots.unanswered.hint')}</Typography.Paragraph>
      <QuestionTable
        pairId={0}
        testId="robot-unanswered-table"
        actions={(question) => (
          <Space size={0} wrap>
            <Button type="link" size="small" icon={<PlusOutlined />} onClick={() => onAdd(question)} data-testid="robot-unanswered-add">
              {t('robots.unanswered.add')}
            </Button>
            <Tooltip title={t('robots.unanswered.dismissHint')}>
              <Button
                type="link"
                size="small"
                icon={<CloseOutlined />}
                loading={dismiss.isPending && dismiss.variables === question.id}
                onClick={() => dismiss.mutate(question.id)}
                data-testid="robot-unanswered-dismiss"
              >
                {t('robots.unanswered.dismiss')}
              </Button>
            </Tooltip>
          </Space>
        )}
      />
    </div>
  );
}

/** How often agents sent an answer the robot suggested to them (agent assist). */
export function AssistFigure() {
  const { t } = useTranslation();
  const figures = useQuery({ queryKey: [ASK_AREA, 'assist'], queryFn: () => call('GET /api/robot/assist') });
  return (
    <Tooltip title={t('robots.assist.hint')}>
      <Statistic
        className="robot-assist-figure"
        title={t('robots.assist.used')}
        value={figures.data?.used ?? '-'}
        styles={{ content: { fontSize: 18 } }}
        data-testid="robot-assist-used"
      />
    </Tooltip>
  );
}
