import { type Friendly, friendlyEditBody } from '@parley/protocol';
import { type Field, ListPage } from '../shared/ListPage';

const fields: Field<Friendly>[] = [
  { key: 'keyword', label: 'friendly.keyword', in: ['search'], searchWidth: 240 },
  { key: 'name', label: 'friendly.name', in: ['column', 'form'], width: 150 },
  { key: 'company', label: 'friendly.company', in: ['column', 'form'], width: 180, ellipsis: true },
  { key: 'phone', label: 'friendly.phone', in: ['column', 'form'], width: 170 },
  { key: 'email', label: 'friendly.email', in: ['column', 'form'], width: 200, ellipsis: true },
  { key: 'wechat', label: 'friendly.wechat', in: ['column', 'form'], width: 140 },
  { key: 'remark', label: 'friendly.remark', kind: 'textarea', in: ['column', 'form'], ellipsis: true },
  { key: 'created_at', label: 'common.createdAt', kind: 'date', in: ['column'], width: 180 },
];

/** Friendly contacts: the team's shared address book of partners and colleagues outside the agent list. */
export default function FriendlyPage() {
  return (
    <ListPage
      area="friendly"
      fields={fields}
      schema={friendlyEditBody}
      titles={{ create: 'friendly.createTitle', edit: 'friendly.editTitle' }}
    />
  );
}
