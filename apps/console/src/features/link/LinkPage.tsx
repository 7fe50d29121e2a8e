import { type ChatLink, linkEditBody } from '@parley/protocol';
import { Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { type Field, ListPage } from '../shared/ListPage';
import { AgentSelect, useAgentOptions } from './AgentSelect';
import { LinkQrButton } from './LinkQrButton';
import './link.css';

function AgentName({ uuid }: { uuid: string | null }) {
  const { t } = useTranslation();
  const agents = useAgentOptions();
  if (uuid === null) return <span className="muted">{t('link.anyAgent')}</span>;
  return <>{agents.nickname(uuid) ?? uuid}</>;
}

/** The chat URL with its copy and QR-code buttons. */
function ChatUrl({ link }: { link: ChatLink }) {
  const { t } = useTranslation();
  return (
    <span className="link-url">
      <Typography.Text copyable={{ text: link.url, tooltips: [t('link.copy'), t('link.copied')] }}>
        <a href={link.url} target="_blank" rel="noopener noreferrer" title={link.url} data-testid="link-url">
          {link.url}
        </a>
      </Typography.Text>
      <LinkQrButton link={link} />
    </span>
  );
}

const fields: Field<ChatLink>[] = [
  { key: 'keyword', label: 'link.keyword', in: ['search'], searchWidth: 240 },
  { key: 'name', label: 'link.name', in: ['column', 'form'], width: 150, ellipsis: true },
  { key: 'key', label: 'link.key', in: ['form'], extra: () => 'link.keyHint' },
  { key: 'url', label: 'link.url', in: ['column'], width: 400, render: (link) => <ChatUrl link={link} /> },
  {
    key: 'serviceID',
    label: 'link.agent',
    in: ['column', 'form'],
    width: 130,
    ellipsis: true,
    render: (link) => <AgentName uuid={link.serviceID} />,
    input: () => <AgentSelect />,
    extra: () => 'link.agentHint',
  },
  {
    key: 'visitors',
    label: 'link.visitors',
    in: ['column'],
    width: 100,
    render: (link) => <span data-testid="link-visitors">{link.visitors}</span>,
  },
  {
    key: 'conversations',
    label: 'link.conversations',
    in: ['column'],
    width: 130,
    render: (link) => <span data-testid="link-conversations">{link.conversations}</span>,
  },
  { key: 'remark', label: 'link.remark', kind: 'textarea', in: ['column', 'form'], width: 180, ellipsis: true },
  { key: 'created_at', label: 'common.createdAt', kind: 'date', in: ['column'], width: 180 },
];

/** Chat links: named `/chat?link=<key>` addresses (and QR codes) that tag their visitors and may pin them to an agent. */
export default function LinkPage() {
  return (
    <ListPage
      area="link"
      fields={fields}
      schema={linkEditBody}
      titles={{ create: 'link.createTitle', edit: 'link.editTitle' }}
      initial={() => ({ serviceID: null })}
      formWidth={560}
    />
  );
}
