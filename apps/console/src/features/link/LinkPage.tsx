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

function ChatUrl({ url }: { url: string }) {
  const { t } = useTranslation();
  return (
    <Typography.Text copyable={{ text: url, tooltips: [t('link.copy'), t('link.copied')] }} className="link-url">
      <a href={url} target="_blank" rel="noopener noreferrer" data-testid="link-url">
        {url}
      </a>
    </Typography.Text>
  );
}

const fields: Field<ChatLink>[] = [
  { key: 'keyword', label: 'link.keyword', in: ['search'], searchWidth: 240 },
  { key: 'name', label: 'link.name', in: ['column', 'form'], width: 160 },
  { key: 'key', label: 'link.key', in: ['form'], extra: () => 'link.keyHint' },
  { key: 'url', label: 'link.url', in: ['column'], width: 340, render: (link) => <ChatUrl url={link.url} /> },
  {
    key: 'serviceID',
    label: 'link.agent',
    in: ['column', 'form'],
    width: 140,
    render: (link) => <AgentName uuid={link.serviceID} />,
    input: () => <AgentSelect />,
    extra: () => 'link.agentHint',
  },
  {
    key: 'visitors',
    label: 'link.visitors',
    in: ['column'],
    width: 100,
    sorter: true,
    render: (link) => <span data-testid="link-visitors">{link.visitors}</span>,
  },
  {
    key: 'conversations',
    label: 'link.conversations',
    in: ['column'],
    width: 110,
    sorter: true,
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
      rowActions={(link) => <LinkQrButton link={link} />}
      formWidth={560}
    />
  );
}
