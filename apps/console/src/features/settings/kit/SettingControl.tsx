import { DeleteOutlined, PlusOutlined } from '@ant-design/icons';
import { Button, Card, Checkbox, ColorPicker, Form, Input } from 'antd';
import type { Color } from 'antd/es/color-picker';
import { useTranslation } from 'react-i18next';
import { type InputKind, KindControl, optionText } from '../../shared/FieldControl';
import type { FieldFacts, Problem } from '../../shared/fields';
import type { FormValues, SettingField, SettingKind } from './spec';
import { TimeRange } from './TimeRange';
import { type ProblemRule, problemRule } from './useCheckedForm';
import { type FieldPath, pathKey } from './validate';

/** What a control needs of the page: the problem of a field now, its schema's limits, the form's values for `visible`, and which secrets are stored. */
export interface Checker {
  problemAt(path: FieldPath): Problem | undefined;
  factsAt(path: FieldPath): FieldFacts;
  values(): FormValues;
  secretStored(path: FieldPath): boolean;
}

interface ControlProps {
  field: SettingField;
  /** The Form.Item name: relative inside a list item, absolute elsewhere. */
  name: FieldPath;
  /** The value's place in the page, as the schema's issues name it. */
  path: FieldPath;
  checker: Checker;
}

function useRules(label: string, path: FieldPath, checker: Checker): ProblemRule[] {
  const { t } = useTranslation();
  return [problemRule(t, label, () => checker.problemAt(path))];
}

/** The values at a place of the form (the page, a group, a list item); an empty record where there are none. */
function valueAt(values: FormValues, path: FieldPath): FormValues {
  let current: unknown = values;
  for (const step of path) current = (current as Record<string | number, unknown> | undefined)?.[step];
  return current && typeof current === 'object' ? (current as FormValues) : {};
}

function testId(path: FieldPath): string {
  return `setting-${pathKey(path)}`;
}

/** The kinds the list kit draws the same way: one control for both (features/shared/FieldControl). */
type SharedKind = Extract<SettingKind, InputKind>;
const SHARED_KINDS: readonly (SharedKind | undefined)[] = [undefined, 'text', 'textarea', 'number', 'switch', 'select', 'multiple', 'tags'];

/** The password is drawn by the same control but with the settings' own hint and placeholder. */
function isShared(kind: SettingKind | undefined): kind is Exclude<SharedKind, 'password'> | undefined {
  return (SHARED_KINDS as readonly (SettingKind | undefined)[]).includes(kind);
}

function Leaf({ field, name, path, checker }: ControlProps) {
  const { t } = useTranslation();
  const label = t(field.label);
  const rules = useRules(label, path, checker);
  const id = testId(path);
  const facts = checker.factsAt(path);
  const options = (field.options ?? []).map((option) => ({ value: option.value, label: optionText(option, t) }));
  // A number's range is said beside it, from the schema, so that nobody has to guess it from a refusal.
  const range =
    field.kind === 'number' && facts.min !== undefined && facts.max !== undefined
      ? t('settings.kit.range', { min: facts.min, max: facts.max })
      : undefined;
  const hints = [field.hint ? t(field.hint) : undefined, range].filter(Boolean);
  const item = { name, label, rules, required: facts.required, extra: hints.length > 0 ? hints.join(' · ') : undefined };
  if (field.input) return <Form.Item {...item}>{field.input()}</Form.Item>;
  if (isShared(field.kind)) {
    return (
      <Form.Item {...item} valuePropName={field.kind === 'switch' ? 'checked' : 'value'}>
        <KindControl kind={field.kind} facts={facts} options={options} data-testid={id} />
      </Form.Item>
    );
  }
  switch (field.kind) {
    case 'color':
      return (
        <Form.Item {...item} getValueFromEvent={(color: Color) => color.toHexString()}>
          <ColorPicker showText format="hex" disabledAlpha data-testid={id} aria-label={label} />
        </Form.Item>
      );
    case 'checkboxes':
      return (
        <Form.Item {...item}>
          <Checkbox.Group options={options} data-testid={id} />
        </Form.Item>
      );
    case 'password': {
      // "Leave empty to keep" only when the server says there is a stored value to keep.
      const stored = checker.secretStored(path);
      return (
        <Form.Item {...item} extra={t(stored ? 'settings.kit.keepSecret' : 'settings.kit.secretHint')}>
          <KindControl
            kind="password"
            facts={facts}
            options={[]}
            placeholder={stored ? t('settings.kit.keepSecretPlaceholder') : undefined}
            data-testid={id}
          />
        </Form.Item>
      );
    }
    case 'timeRange':
      return (
        <Form.Item {...item}>
          <TimeRange data-testid={id} aria-label={label} />
        </Form.Item>
      );
    default:
      return (
        <Form.Item {...item}>
          <Input placeholder="HH:mm" maxLength={5} style={{ width: 120 }} data-testid={id} />
        </Form.Item>
      );
  }
}

function Group({ field, name, path, checker }: ControlProps) {
  const { t } = useTranslation();
  return (
    <fieldset className="settings-group">
      <legend>{t(field.label)}</legend>
      <SettingFields fields={field.fields ?? []} name={name} path={path} checker={checker} />
    </fieldset>
  );
}

function List({ field, name, path, checker }: ControlProps) {
  const { t } = useTranslation();
  const label = t(field.label);
  const listRules = useRules(label, path, checker);
  return (
    <fieldset className="settings-group">
      <legend>{label}</legend>
      <Form.List name={name} rules={listRules}>
        {(items, { add, remove }, { errors }) => (
          <div className={field.inline ? 'settings-list inline' : 'settings-list'}>
            {items.map((item, index) => (
              <Card
                key={item.key}
                size="small"
                title={`${label} ${index + 1}`}
                extra={
                  <Button
                    type="text"
                    danger
                    icon={<DeleteOutlined />}
                    aria-label={`${t('common.delete')} ${label} ${index + 1}`}
                    onClick={() => remove(item.name)}
                  />
                }
              >
                <SettingFields fields={field.fields ?? []} name={[item.name]} path={[...path, index]} checker={checker} />
              </Card>
            ))}
            <Button type="dashed" icon={<PlusOutlined />} onClick={() => add(structuredClone(field.newItem ?? {}))} block>
              {t(field.addLabel ?? 'settings.kit.add')}
            </Button>
            <Form.ErrorList errors={errors} />
          </div>
        )}
      </Form.List>
    </fieldset>
  );
}

function Control(props: ControlProps) {
  if (props.field.kind === 'group') return <Group {...props} />;
  if (props.field.kind === 'list') return <List {...props} />;
  return <Leaf {...props} />;
}

/** A run of fields under one name (the page, a group, a list item, a device tab). */
export function SettingFields({
  fields,
  name,
  path,
  checker,
}: {
  fields: SettingField[];
  name: FieldPath;
  path: FieldPath;
  checker: Checker;
}) {
  return (
    <>
      {fields.map((field) => {
        const props = { field, name: [...name, field.name], path: [...path, field.name], checker };
        if (!field.visible) return <Control key={field.name} {...props} />;
        const visible = field.visible;
        return (
          <Form.Item key={field.name} noStyle shouldUpdate>
            {() => (visible(valueAt(checker.values(), path)) ? <Control {...props} /> : null)}
          </Form.Item>
        );
      })}
    </>
  );
}
