import { type RobotAsk, type RobotQuestion, robotAskEditBody } from '@parley/protocol';
import { Badge, Space, Switch, Tabs, Tag, Tooltip, Typography } from 'antd';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { type Field, ListPage } from '../shared/ListPage';
import { useListMutations } from '../shared/list';
import { ImageInput, QuestionsInput } from './AskInputs';
import { AssistFigure, PairQuestionsButton, UnansweredList, useUnansweredCount } from './AskQuestions';
import { ExportButton, ImportButton, TryButton } from './AskTools';
import { ASK_AREA } from './queries';
import './robot.css';

/** The first phrasing, and how many more there are (all of them on hover). */
function Questions({ pair }: { pair: RobotAsk }) {
  const [first, ...more] = pair.questions;
  return (
    <Space size={4} className="robot-questions-cell">
      <Typography.Text ellipsis={{ tooltip: first }} data-testid="robot-row-question">
        {first}
      </Typography.Text>
      {more.length > 0 && (
        <Tooltip title={more.join(' / ')}>
          <Tag className="robot-more">+{more.length}</Tag>
        </Tooltip>
      )}
    </Space>
  );
}

/** Switches a pair on or off in place: the whole pair is saved again with the new state. */
function EnabledSwitch({ pair }: { pair: RobotAsk }) {
  const { t } = useTranslation();
  const { save } = useListMutations(ASK_AREA);
  return (
    <Switch
      size="small"
      checked={pair.enabled}
      loading={save.isPending}
      aria-label={t('robots.ask.enabled')}
      onChange={(enabled) =>
        save.mutate({ id: pair.id, questions: pair.questions, answer: pair.answer, image: pair.image, category: pair.category, enabled })
      }
      data-testid="robot-row-enabled"
    />
  );
}

const fields: Field<RobotAsk>[] = [
  { key: 'keyword', label: 'robots.ask.keyword', in: ['search'], searchWidth: 200 },
  {
    key: 'questions',
    label: 'robots.ask.questions',
    in: ['column', 'form'],
    width: 200,
    render: (pair) => <Questions pair={pair} />,
    input: () => <QuestionsInput />,
    extra: () => 'robots.ask.questionsHint',
  },
  { key: 'answer', label: 'robots.ask.answer', kind: 'textarea', in: ['column', 'form'], width: 220, ellipsis: true },
  { key: 'image', label: 'robots.ask.image', in: ['form'], input: () => <ImageInput />, extra: () => 'robots.ask.imageHint' },
  { key: 'category', label: 'robots.ask.category', in: ['search', 'column', 'form'], width: 110, searchWidth: 140, ellipsis: true },
  {
    key: 'enabled',
    label: 'robots.ask.enabled',
    kind: 'switch',
    in: ['search', 'column', 'form'],
    width: 100,
    render: (pair) => <EnabledSwitch pair={pair} />,
  },
  { key: 'hits', label: 'robots.ask.hits', in: ['column'], width: 80, sorter: true },
  { key: 'assists', label: 'robots.ask.assists', in: ['column'], width: 100, sorter: true },
  { key: 'updated_at', label: 'robots.ask.updated', kind: 'date', in: ['column'], width: 170, sorter: true },
];

type Tab = 'pairs' | 'unanswered';

/**
 * The question-answer robot's knowledge base: pairs of phrasings and an answer, imported, exported and
 * tried out here; for each pair the visitors' questions that reached it, and beside them the questions
 * the robot could not answer, each a pair in one step.
 */
export default function AskRobotPage() {
  const { t } = useTranslation();
  const [tab, setTab] = useState<Tab>('pairs');
  const [createWith, setCreateWith] = useState<{ values: Record<string, unknown>; at: number } | null>(null);
  const unanswered = useUnansweredCount();
  const addPair = (question: RobotQuestion) => setCreateWith({ values: { questions: [question.text] }, at: Date.now() });
  // A request is taken once (the list's effect runs before this one): a list drawn anew later does not open it again.
  useEffect(() => {
    if (createWith) setCreateWith(null);
  }, [createWith]);
  return (
    <div className="robot-ask" data-testid="robot-ask">
      <Tabs
        activeKey={tab}
        onChange={(key) => setTab(key as Tab)}
        tabBarExtraContent={<AssistFigure />}
        items={[
          {
            key: 'pairs',
            label: t('robots.ask.tabPairs'),
            // Kept mounted: "Add as a pair" on the other tab opens this list's pair editor.
            forceRender: true,
            children: <PairList createWith={createWith} />,
          },
          {
            key: 'unanswered',
            label: (
              <span data-testid="robot-tab-unanswered">
                {t('robots.unanswered.tab')} <Badge count={unanswered} overflowCount={999} showZero={false} color="#faad14" />
              </span>
            ),
            children: <UnansweredList onAdd={addPair} />,
          },
        ]}
      />
    </div>
  );
}

function PairList({ createWith }: { createWith: { values: Record<string, unknown>; at: number } | null }) {
  return (
    <ListPage
      area={ASK_AREA}
      fields={fields}
      schema={robotAskEditBody}
      titles={{ create: 'robots.ask.createTitle', edit: 'robots.ask.editTitle' }}
      testId="robot-ask-page"
      initial={() => ({ questions: [''], answer: '', image: '', category: '', enabled: true })}
      toForm={(pair) => ({
        questions: pair.questions,
        answer: pair.answer,
        image: pair.image,
        category: pair.category,
        enabled: pair.enabled,
      })}
      createWith={createWith}
      rowActions={(pair) => <PairQuestionsButton pair={pair} />}
      toolbar={(filters) => (
        <>
          <TryButton />
          <ImportButton />
          <ExportButton filters={filters} />
        </>
      )}
      editIn="drawer"
      formWidth={560}
    />
  );
}
