import { CheckOutlined } from '@ant-design/icons';
import { type Letter, type LetterState, letterEditBody } from '@parley/protocol';
import { Badge, Button } from 'antd';
import { useTranslation } from 'react-i18next';
import { type Field, type FieldOption, ListPage } from '../shared/ListPage';
import { markRead, refreshLetters } from './queries';

const STATES: FieldOption[] = [
  { value: 'unread', label: 'letter.state.unread', status: 'error' },
  { value: 'read', label: 'letter.state.read', status: 'processing' },
  { value: 'handled', label: 'letter.state.handled', status: 'success' },
];

function stateOf(letter: Letter): LetterState {
  if (letter.handled) return 'handled';
  return letter.read ? 'read' : 'unread';
}

function LetterStateBadge({ state }: { state: LetterState }) {
  const { t } = useTranslation();
  const option = STATES.find((item) => item.value === state);
  return <Badge status={option?.status} text={t(`letter.state.${state}`)} />;
}

const FIELDS: Field<Letter>[] = [
  {
    key: 'state',
    label: 'letter.stateLabel',
    kind: 'select',
    in: ['search', 'column'],
    options: STATES,
    width: 110,
    render: (letter) => <LetterStateBadge state={stateOf(letter)} />,
  },
  { key: 'keyword', label: 'letter.keyword', in: ['search'] },
  { key: 'name', label: 'letter.name', in: ['column', 'detail'], width: 140 },
  { key: 'phone', label: 'letter.phone', in: ['column', 'detail'], width: 150 },
  { key: 'email', label: 'letter.email', in: ['column', 'detail'], width: 200, ellipsis: true },
  { key: 'content', label: 'letter.content', kind: 'textarea', in: ['column', 'detail'], ellipsis: true },
  { key: 'createdAt', label: 'letter.time', kind: 'date', in: ['search', 'column', 'detail'], width: 180, sorter: true },
  // Opening a letter reads it: the detail shows it read even before the list has been refreshed.
  {
    key: 'state',
    label: 'letter.stateLabel',
    in: ['detail'],
    render: (letter) => <LetterStateBadge state={stateOf({ ...letter, read: true })} />,
  },
  { key: 'handledBy', label: 'letter.handledBy', in: ['detail'] },
  { key: 'handled', label: 'letter.handled', kind: 'switch', in: ['form'] },
  { key: 'note', label: 'letter.note', kind: 'textarea', in: ['form'] },
];

/** The leave-message inbox: opening a letter reads it; an agent marks it handled with a note. */
export default function LetterPage() {
  const { t } = useTranslation();
  return (
    <ListPage
      area="letter"
      fields={FIELDS}
      schema={letterEditBody}
      create={false}
      editIn="drawer"
      editLabel="letter.open"
      titles={{ create: 'letter.detailTitle', edit: 'letter.detailTitle' }}
      onOpen={(letter) => {
        if (!letter.read) markRead([letter.id]).catch(() => undefined);
      }}
      onChanged={() => void refreshLetters()}
      batchActions={(selected, clear) => (
        <Button
          icon={<CheckOutlined />}
          disabled={!selected.some((letter) => !letter.read)}
          onClick={() => markRead(selected.filter((letter) => !letter.read).map((letter) => letter.id)).then(clear)}
        >
          {t('letter.markRead')}
        </Button>
      )}
    />
  );
}
