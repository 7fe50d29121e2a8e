import { DownloadOutlined, ExperimentOutlined, UploadOutlined } from '@ant-design/icons';
import {
  type InputOf,
  MAX_ROBOT_ANSWER_LENGTH,
  MAX_ROBOT_IMPORT_BYTES,
  type RobotImportResult,
  type RobotMatch,
  type RobotTryResult,
} from '@parley/protocol';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Alert, Button, Empty, Image, Input, List, Modal, Progress, Statistic, Table, Tag, Typography, Upload } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { call, download, saveFile, upload } from '../../lib/api';
import { toastError } from '../../lib/feedback';
import type { Filters } from '../shared/list';
import { ASK_AREA } from './queries';

/** A score of 0..1 as the percentage people read. */
export function percent(score: number): string {
  return `${Math.round(score * 100)}%`;
}

/** Sends a CSV to the import and shows what became of it: pairs created, pairs updated, and each refused line with why. */
export function ImportButton() {
  const { t } = useTranslation();
  const client = useQueryClient();
  const [report, setReport] = useState<RobotImportResult | null>(null);
  const run = useMutation({
    mutationFn: (file: File) => upload('POST /api/robot/ask/import', file),
    onSuccess: (result) => {
      setReport(result);
      return client.invalidateQueries({ queryKey: [ASK_AREA] });
    },
  });
  return (
    <>
      <Upload
        accept=".csv,text/csv"
        showUploadList={false}
        beforeUpload={(file) => {
          // Refused here rather than after the upload: the server would refuse it the same way.
          if (file.size > MAX_ROBOT_IMPORT_BYTES) toastError(t('robots.import.tooLarge', { mb: MAX_ROBOT_IMPORT_BYTES / 1024 / 1024 }));
          else run.mutate(file);
          return false;
        }}
      >
        <Button icon={<UploadOutlined />} loading={run.isPending} data-testid="robot-import">
          {t('robots.import.button')}
        </Button>
      </Upload>
      <Modal
        title={t('robots.import.title')}
        open={report !== null}
        onCancel={() => setReport(null)}
        footer={
          <Button type="primary" onClick={() => setReport(null)}>
            {t('common.ok')}
          </Button>
        }
        destroyOnHidden
      >
        {report && (
          <div className="robot-import-report" data-testid="robot-import-report">
            <div className="robot-import-counts">
              <Statistic title={t('robots.import.created')} value={report.created} data-testid="robot-import-created" />
              <Statistic title={t('robots.import.updated')} value={report.updated} data-testid="robot-import-updated" />
              <Statistic title={t('robots.import.refused')} value={report.errors.length} data-testid="robot-import-refused" />
            </div>
            {report.errors.length > 0 ? (
              <Table
                size="small"
                rowKey={(row) => `${row.line}:${row.message}`}
                pagination={report.errors.length > 10 ? { pageSize: 10, size: 'small' } : false}
                dataSource={report.errors}
                columns={[
                  { key: 'line', dataIndex: 'line', title: t('robots.import.line'), width: 80 },
                  { key: 'message', dataIndex: 'message', title: t('robots.import.why') },
                ]}
                data-testid="robot-import-errors"
              />
            ) : (
              <Alert type="success" showIcon message={t('robots.import.allGood')} />
            )}
            <Typography.Paragraph type="secondary" className="robot-import-format">
              {t('robots.import.format')}
            </Typography.Paragraph>
          </div>
        )}
      </Modal>
    </>
  );
}

/** Downloads the pairs of the current filters as the CSV the import reads back. */
export function ExportButton({ filters }: { filters: Filters }) {
  const { t } = useTranslation();
  const [busy, setBusy] = useState(false);
  const run = () => {
    setBusy(true);
    const { keyword, category, enabled } = filters;
    download('GET /api/robot/ask/export', { keyword, category, enabled } as InputOf<'GET /api/robot/ask/export'>)
      .then(saveFile)
      .catch(() => undefined)
      .finally(() => setBusy(false));
  };
  return (
    <Button icon={<DownloadOutlined />} loading={busy} onClick={run} data-testid="robot-export">
      {t('robots.export')}
    </Button>
  );
}

function MatchLine({ match }: { match: RobotMatch }) {
  return (
    <List.Item extra={<Tag>{percent(match.score)}</Tag>}>
      <List.Item.Meta
        title={match.question}
        description={<Typography.Text ellipsis={{ tooltip: match.answer }}>{match.answer}</Typography.Text>}
      />
    </List.Item>
  );
}

/** What the robot would answer: the best pair above the threshold with its score, and the runners-up. */
function TryResult({ result }: { result: RobotTryResult }) {
  const { t } = useTranslation();
  if (result === null)
    return <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('robots.try.noMatch')} data-testid="robot-try-nomatch" />;
  return (
    <div className="robot-try-result" data-testid="robot-try-result">
      <div className="robot-try-head">
        <Typography.Text type="secondary">{t('robots.try.matched')}</Typography.Text>
        <Typography.Text strong data-testid="robot-try-question">
          {result.question}
        </Typography.Text>
        <Progress
          percent={Math.round(result.score * 100)}
          size="small"
          format={() => percent(result.score)}
          aria-label={t('robots.try.score')}
          data-testid="robot-try-score"
        />
      </div>
      <div className="robot-try-answer" data-testid="robot-try-answer">
        {result.answer}
        {result.image && <Image src={result.image} alt="" width={120} />}
      </div>
      {result.suggestions.length > 0 && (
        <>
          <Typography.Text type="secondary">{t('robots.try.suggestions')}</Typography.Text>
          <List
            size="small"
            dataSource={result.suggestions}
            renderItem={(match) => <MatchLine match={match} />}
            data-testid="robot-try-suggestions"
          />
        </>
      )}
    </div>
  );
}

/** A box to ask the robot a question as a visitor would, and see what it answers and how sure it is. */
export function TryButton() {
  const { t } = useTranslation();
  const [open, setOpen] = useState(false);
  const [text, setText] = useState('');
  const ask = useMutation({ mutationFn: (question: string) => call('POST /api/robot/try', { text: question }) });
  return (
    <>
      <Button icon={<ExperimentOutlined />} onClick={() => setOpen(true)} data-testid="robot-try">
        {t('robots.try.button')}
      </Button>
      <Modal title={t('robots.try.title')} open={open} onCancel={() => setOpen(false)} footer={null} destroyOnHidden>
        <Input.Search
          value={text}
          onChange={(event) => setText(event.target.value)}
          onSearch={(value) => {
            if (value.trim()) ask.mutate(value.trim());
          }}
          maxLength={MAX_ROBOT_ANSWER_LENGTH}
          placeholder={t('robots.try.placeholder')}
          aria-label={t('robots.try.placeholder')}
          enterButton={t('robots.try.ask')}
          loading={ask.isPending}
          data-testid="robot-try-input"
        />
        <div className="robot-try-body">
          {ask.isSuccess ? <TryResult result={ask.data} /> : <Typography.Text type="secondary">{t('robots.try.hint')}</Typography.Text>}
        </div>
      </Modal>
    </>
  );
}
