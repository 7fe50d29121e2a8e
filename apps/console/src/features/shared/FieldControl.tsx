import { Badge, DatePicker, Input, InputNumber, Select, Space, Switch, Tag } from 'antd';
import { cloneElement, isValidElement, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { formatDateTime } from '../../lib/format';
import { useSettings } from '../../stores/settings';
import { type Editing, type Field, type FieldFacts, type FieldKind, type FieldOption, optionOf } from './fields';

type Translate = (key: string, values?: Record<string, unknown>) => string;

/** More options than this, and a search select can be typed into. */
const LONG_LIST = 8;

export function optionText(option: FieldOption, t: Translate): string {
  return option.text ?? (option.label ? t(option.label) : String(option.value));
}

function selectOptions(field: Field<unknown>, t: Translate) {
  return (field.options ?? []).map((option) => ({ value: option.value, label: optionText(option, t), disabled: option.disabled }));
}

/**
 * The search control of a field. antd hands it value and onChange through Form.Item; the label of
 * the Form.Item names it for assistive technology, the placeholder repeats it inside the box.
 */
export function SearchControl<Row>({ field, id, ...rest }: { field: Field<Row>; id?: string }) {
  const { t } = useTranslation();
  const label = t(field.label);
  // On a phone each search field has a line of its own and fills it.
  const mobile = useSettings((state) => state.device === 'mobile');
  const size = (desktop: number | undefined) => (mobile ? { width: '100%' } : desktop ? { width: desktop } : undefined);
  const width = field.searchWidth;
  switch (field.kind) {
    case 'select':
      return (
        <Select
          {...rest}
          id={id}
          allowClear
          aria-label={label}
          placeholder={label}
          style={size(width ?? 150)}
          options={selectOptions(field as Field<unknown>, t)}
          // A long list is found by typing, not by scrolling through it.
          showSearch={(field.options?.length ?? 0) > LONG_LIST ? { optionFilterProp: 'label' } : undefined}
        />
      );
    case 'switch':
      return (
        <Select
          {...rest}
          id={id}
          allowClear
          aria-label={label}
          placeholder={label}
          style={size(width ?? 120)}
          options={[
            { value: 'true', label: t('common.yes') },
            { value: 'false', label: t('common.no') },
          ]}
        />
      );
    case 'date':
      return (
        <DatePicker.RangePicker
          {...rest}
          id={{ start: id }}
          allowEmpty={[true, true]}
          placeholder={[t('kit.from'), t('kit.to')]}
          aria-label={label}
          style={size(width)}
        />
      );
    case 'number':
      return <InputNumber {...rest} id={id} aria-label={label} placeholder={label} style={size(width ?? 140)} />;
    default:
      return <Input {...rest} id={id} allowClear placeholder={label} style={size(width)} />;
  }
}

/** The kinds of input both kits draw the same way (the settings kit adds `multiple`). */
export type InputKind = FieldKind | 'multiple';

/**
 * An input of a kind, bounded by what its schema allows (length, whole numbers): the one
 * place the list kit's edit forms and the settings pages draw their plain inputs. Everything else the
 * Form.Item hands (value, onChange, id) and test ids go through `rest`.
 */
export function KindControl({
  kind,
  facts,
  options,
  disabled,
  ...rest
}: {
  kind?: InputKind;
  facts: FieldFacts;
  options: { value: string | number; label: string; disabled?: boolean }[];
  disabled?: boolean;
} & Record<string, unknown>) {
  switch (kind) {
    case 'textarea':
      return (
        <Input.TextArea
          {...rest}
          disabled={disabled}
          maxLength={facts.maxLength}
          showCount={Boolean(facts.maxLength)}
          autoSize={{ minRows: 2, maxRows: 8 }}
        />
      );
    case 'password':
      return <Input.Password {...rest} disabled={disabled} maxLength={facts.maxLength} autoComplete="new-password" />;
    case 'number':
      // The bounds are not handed to the control: it would silently pull a typed 0 up to the minimum,
      // where the form's check says what the limit is and keeps what the user typed.
      return <InputNumber {...rest} disabled={disabled} step={1} precision={facts.integer ? 0 : undefined} style={{ width: '100%' }} />;
    case 'switch':
      return <Switch {...rest} disabled={disabled} />;
    case 'select':
      return <Select {...rest} disabled={disabled} options={options} />;
    case 'multiple':
      return <Select {...rest} mode="multiple" disabled={disabled} options={options} />;
    case 'tags':
      // Free entries: with no suggestions there is no list to open, only the typed tags.
      return <Select {...rest} mode="tags" disabled={disabled} options={options} open={options.length > 0 ? undefined : false} />;
    default:
      return <Input {...rest} disabled={disabled} maxLength={facts.maxLength} autoComplete="off" />;
  }
}

/** The edit form control of a field, bounded by what its schema allows. */
export function FormControl<Row>({ field, facts, editing, ...rest }: { field: Field<Row>; facts: FieldFacts; editing: Editing<Row> }) {
  const { t } = useTranslation();
  if (field.input) {
    // The page's own control gets the value and onChange the form item hands to its child.
    const control = field.input(editing);
    return isValidElement(control) ? cloneElement(control, rest) : control;
  }
  return (
    <KindControl
      {...rest}
      kind={field.kind}
      facts={facts}
      options={selectOptions(field as Field<unknown>, t)}
      disabled={field.disabled?.(editing) ?? false}
    />
  );
}

/** What a cell or a detail line shows for a field: the page's render, else the kind's. */
export function FieldValue<Row>({ field, row }: { field: Field<Row>; row: Row }): ReactNode {
  const { t } = useTranslation();
  if (field.render) return field.render(row);
  const value = (row as Record<string, unknown>)[field.key];
  if (value === undefined || value === null || value === '') return <span className="muted">-</span>;
  switch (field.kind) {
    case 'date':
      return formatDateTime(String(value));
    case 'switch':
      return value ? t('common.yes') : t('common.no');
    case 'select': {
      const option = optionOf(field, value);
      if (!option) return String(value);
      if (option.status) return <Badge status={option.status} text={optionText(option, t)} />;
      return option.color ? <Tag color={option.color}>{optionText(option, t)}</Tag> : optionText(option, t);
    }
    case 'tags':
      return Array.isArray(value) ? (
        <Space size={[4, 4]} wrap>
          {value.map((item) => (
            <Tag key={String(item)}>{String(item)}</Tag>
          ))}
        </Space>
      ) : (
        String(value)
      );
    default:
      return String(value);
  }
}
