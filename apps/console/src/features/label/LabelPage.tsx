import { type Label, labelEditBody } from '@parley/protocol';
import { Alert, ColorPicker } from 'antd';
import { useTranslation } from 'react-i18next';
import { type Field, ListPage } from '../shared/ListPage';
import { LabelTag } from './LabelTag';

/** Colours offered first: antd's palette, each dark enough for the tag's white text. */
const PRESETS = ['#cf1322', '#d4380d', '#d46b08', '#7cb305', '#389e0d', '#08979c', '#0958d9', '#1d39c4', '#531dab', '#c41d7f', '#595959'];

/** The form's colour control: the picker hands back `#rrggbb`, as the server stores it. */
function ColorInput({ value, onChange }: { value?: string; onChange?: (color: string) => void }) {
  const { t } = useTranslation();
  return (
    <ColorPicker
      value={value ?? PRESETS[6]}
      format="hex"
      disabledAlpha
      showText
      presets={[{ label: t('labels.color'), colors: PRESETS }]}
      onChange={(color) => onChange?.(color.toHexString().slice(0, 7))}
      data-testid="label-color"
    />
  );
}

const fields: Field<Label>[] = [
  { key: 'keyword', label: 'labels.keyword', in: ['search'], searchWidth: 240 },
  {
    key: 'name',
    label: 'labels.name',
    in: ['column', 'form'],
    width: 200,
    render: (label) => <LabelTag label={label} />,
  },
  {
    key: 'color',
    label: 'labels.color',
    in: ['column', 'form'],
    width: 130,
    render: (label) => (
      <span className="label-color">
        <span className="label-swatch" style={{ background: label.color }} aria-hidden />
        {label.color}
      </span>
    ),
    input: () => <ColorInput />,
  },
  { key: 'description', label: 'labels.description', kind: 'textarea', in: ['column', 'form'], ellipsis: true },
  { key: 'conversations', label: 'labels.conversations', in: ['column'], width: 120 },
  { key: 'createdAt', label: 'common.createdAt', kind: 'date', in: ['column'], width: 180 },
];

/** Conversation labels: the team's list of names and colours that agents put on conversations. */
export default function LabelPage() {
  const { t } = useTranslation();
  return (
    <>
      <Alert className="label-intro" type="info" showIcon message={t('labels.intro')} />
      <ListPage
        area="label"
        fields={fields}
        schema={labelEditBody}
        titles={{ create: 'labels.createTitle', edit: 'labels.editTitle' }}
        initial={() => ({ color: PRESETS[6] })}
      />
    </>
  );
}
