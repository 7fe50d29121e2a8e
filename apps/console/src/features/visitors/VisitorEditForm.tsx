import { type VisitorRecord, visitorEditBody } from '@parley/protocol';
import { Button, Form, Input, Select } from 'antd';
import { useTranslation } from 'react-i18next';
import { checkField, fieldFacts } from '../shared/fields';

type Values = Pick<VisitorRecord, 'name' | 'phone' | 'email' | 'remark' | 'tags'>;

const FIELDS = [
  { key: 'name', label: 'records.visitor.name' },
  { key: 'phone', label: 'records.visitor.phone' },
  { key: 'email', label: 'records.visitor.email' },
  { key: 'remark', label: 'records.visitor.remark' },
  { key: 'tags', label: 'records.visitor.tags' },
] as const;

/** What agents note about a visitor; each value is checked with the protocol's schema, as the server will. */
export function VisitorEditForm({ visitor, saving, onSave }: { visitor: VisitorRecord; saving: boolean; onSave(values: Values): void }) {
  const { t } = useTranslation();
  const [form] = Form.useForm<Values>();
  const rules = (key: (typeof FIELDS)[number]['key'], label: string) => [
    {
      validator: (_: unknown, value: unknown) => {
        const problem = checkField(visitorEditBody, key, value);
        return problem ? Promise.reject(new Error(t(problem.key, { ...problem.values, label: t(label) }))) : Promise.resolve();
      },
    },
  ];
  const control = (key: (typeof FIELDS)[number]['key']) => {
    const { maxLength } = fieldFacts(visitorEditBody, key);
    if (key === 'remark') return <Input.TextArea maxLength={maxLength} showCount autoSize={{ minRows: 3, maxRows: 8 }} />;
    if (key === 'tags') return <Select mode="tags" open={false} suffixIcon={null} placeholder={t('records.visitor.tagsHint')} />;
    return <Input maxLength={maxLength} autoComplete="off" />;
  };
  return (
    <Form
      form={form}
      name="visitorEdit"
      layout="vertical"
      initialValues={{ name: visitor.name, phone: visitor.phone, email: visitor.email, remark: visitor.remark, tags: visitor.tags }}
      onFinish={onSave}
    >
      {FIELDS.map((field) => (
        <Form.Item key={field.key} name={field.key} label={t(field.label)} rules={rules(field.key, field.label)}>
          {control(field.key)}
        </Form.Item>
      ))}
      <Button type="primary" htmlType="submit" loading={saving} data-testid="visitor-save">
        {t('common.save')}
      </Button>
    </Form>
  );
}
