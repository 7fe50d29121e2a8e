/**
 * The console's list kit: ONE field list per area drives its search form, its table columns, its edit
 * form and its detail view (ant-design-pro's ProTable idea on plain antd).
 *
 * To declare an area (`/api/<area>/getList`, `/doEdit`, `/doDelete` in the protocol's endpoint table):
 *
 *   const fields: Field<Friendly>[] = [
 *     { key: 'keyword', label: 'friendly.keyword', in: ['search'] },
 *     { key: 'name', label: 'friendly.name', in: ['column', 'form'], width: 160 },
 *     { key: 'remark', label: 'friendly.remark', kind: 'textarea', in: ['column', 'form'], ellipsis: true },
 *     { key: 'created_at', label: 'common.createdAt', kind: 'date', in: ['column'], width: 180 },
 *   ];
 *   export default function FriendlyPage() {
 *     return <ListPage area="friendly" fields={fields} schema={friendlyEditBody} titles={{ create: 'friendly.createTitle', edit: 'friendly.editTitle' }} />;
 *   }
 *
 * Labels are i18n keys. The edit form's rules come from `schema` (the protocol's zod body): required,
 * lengths and bounds are read from it and each value is checked with it, the issue shown in the user's
 * language. A field's `in` says where it appears; `kind` how it is entered and shown (see fields.ts).
 * Details that deserve a page open as `dynamicNewTab` tabs with `useOpenDetail` / `<DetailLink>`.
 * On a phone (under CARD_BELOW, cards.ts) the rows are drawn as cards from the same columns (CardList).
 */
import { EditOutlined, PlusOutlined, ReloadOutlined } from '@ant-design/icons';
import { Button, Descriptions, Drawer, Form, Space, Table, type TableColumnType, Tooltip, Typography } from 'antd';
import { type ReactNode, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useSettings } from '../../stores/settings';
import { CardList, useCardLayout } from './CardList';
import { BatchDeleteButton, RowDeleteButton } from './DeleteButtons';
import { EditModal } from './EditModal';
import { FieldValue, FormControl, SearchControl } from './FieldControl';
import { SearchedKeyword } from './Found';
import {
  bodyValue,
  checkField,
  compareValues,
  type Editing,
  type Field,
  type FormSchema,
  fieldFacts,
  fieldsIn,
  searchFilters,
} from './fields';
import { type EditBody, type Filters, type ListArea, type RowOf, useListMutations, useListPage } from './list';
import './listPage.css';

export type { Field, FieldKind, FieldOption, Place } from './fields';

type Values = Record<string, unknown>;

export interface ListPageProps<A extends ListArea> {
  area: A;
  fields: Field<RowOf<A>>[];
  /** The protocol's body schema of `/api/<area>/doEdit`; without it the list is read only. */
  schema?: FormSchema;
  /** i18n keys of the edit form's titles. */
  titles?: { create: string; edit: string };
  /** The row's id, sent to `doDelete` and as `id` to `doEdit` (default `id`). */
  rowKey?: keyof RowOf<A> & string;
  /** The user may create, edit and delete here (the server checks it again). Default true. */
  manage?: boolean;
  /** Offer "create" (default: when there is a schema and the user may manage). */
  create?: boolean;
  /** Values of a new row's form. */
  initial?: () => Values;
  /**
   * Opens the create form from outside the list with these values over `initial` (a row made from
   * something else on the page); `at` tells one request from the next.
   */
  createWith?: { values: Values; at: number } | null;
  /** A row's form values (default: its values of the form fields). */
  toForm?: (row: RowOf<A>) => Values;
  /** The body sent to `doEdit` (default: the form's values and the row's id). */
  toBody?: (values: Values, editing: Editing<RowOf<A>>) => EditBody<A>;
  /** Rows this user may act on (edit, delete, select); others show no actions. */
  rowManageable?: (row: RowOf<A>) => boolean;
  /** Why a row cannot be deleted (i18n key), shown on its disabled delete button. */
  deleteBlocked?: (row: RowOf<A>) => string | undefined;
  /** Rows may be deleted (default true when the user may manage). */
  deletable?: boolean;
  /** Actions of a row before edit and delete. */
  rowActions?: (row: RowOf<A>) => ReactNode;
  /** Toolbar buttons that act on the list as filtered on screen (an export). */
  toolbar?: (filters: Filters) => ReactNode;
  /** Toolbar buttons for the selected rows, beside batch delete. */
  batchActions?: (selected: RowOf<A>[], clear: () => void) => ReactNode;
  /** The i18n key of a row's edit button (default "edit"). */
  editLabel?: string;
  /** The edit form opens as a modal (default) or a drawer (with the detail fields above it). */
  editIn?: 'modal' | 'drawer';
  /** Called when the edit form opens on a row (e.g. to mark it read). */
  onOpen?: (row: RowOf<A>) => void;
  /** Called once a save or a delete went through (the area's lists are refreshed already). */
  onChanged?: () => void;
  /** Filters the list starts with. */
  initialFilters?: Filters;
  formWidth?: number;
  /** data-testid of the page, its create button is `<testId minus -page>-create` (default `<area>-page`). */
  testId?: string;
}

function formValues<Row>(fields: Field<Row>[], row: Row): Values {
  const record = row as Record<string, unknown>;
  return Object.fromEntries(fieldsIn(fields, 'form').map((field) => [field.key, record[field.key]]));
}

function defaultBody<Row>(
  fields: Field<Row>[],
  schema: FormSchema | undefined,
  values: Values,
  editing: Editing<Row>,
  rowKey: string,
): Values {
  const body: Values = {};
  for (const field of fieldsIn(fields, 'form')) {
    const value = bodyValue(schema, field.key, values[field.key]);
    if (value !== undefined) body[field.key] = value;
  }
  if (editing) body[rowKey] = (editing as Record<string, unknown>)[rowKey];
  return body;
}

/** The table width: each column's own, and room for those that take what is left. */
function tableWidth<Row>(columns: Field<Row>[], withActions: boolean): number {
  return columns.reduce((sum, field) => sum + (field.width ?? 200), 0) + (withActions ? 180 : 0) + 48;
}

export function ListPage<A extends ListArea>(props: ListPageProps<A>) {
  type Row = RowOf<A>;
  const { t } = useTranslation();
  const mobile = useSettings((state) => state.device === 'mobile');
  const cards = useCardLayout();
  const { area, fields, schema } = props;
  const rowKey = props.rowKey ?? ('id' as keyof Row & string);
  const manage = props.manage ?? true;
  const editable = manage && schema !== undefined;
  const deletable = manage && (props.deletable ?? true);
  const creatable = editable && (props.create ?? true);
  const page = useListPage(area, props.initialFilters);
  const { save, remove } = useListMutations(area);
  const [editing, setEditing] = useState<Editing<Row> | undefined>(undefined);
  const [selected, setSelected] = useState<Row[]>([]);
  const [form] = Form.useForm<Values>();
  const [searchForm] = Form.useForm<Values>();
  const idOf = (row: Row) => (row as Record<string, unknown>)[rowKey] as number | string;
  const mayAct = (row: Row) => props.rowManageable?.(row) ?? true;
  const testId = props.testId ?? `${area}-page`;

  const open = (row: Row | null) => {
    setEditing(row);
    form.setFieldsValue(row ? (props.toForm?.(row) ?? formValues(fields, row)) : (props.initial?.() ?? {}));
    if (row) props.onOpen?.(row);
  };
  const close = () => setEditing(undefined);
  const request = props.createWith;
  // biome-ignore lint/correctness/useExhaustiveDependencies: each request opens the form once; `initial` is read at that moment.
  useEffect(() => {
    if (!request) return;
    setEditing(null);
    form.setFieldsValue({ ...props.initial?.(), ...request.values });
  }, [request, form]);
  const submit = async () => {
    if (editing === undefined) return;
    const values = await form.validateFields();
    const body = props.toBody ? props.toBody(values, editing) : (defaultBody(fields, schema, values, editing, rowKey) as EditBody<A>);
    await save.mutateAsync(body);
    props.onChanged?.();
    close();
  };
  const clearSelection = () => setSelected([]);
  const removeRows = (ids: Array<number | string>) => remove.mutateAsync(ids).then(() => props.onChanged?.());

  const actionsOf = (row: Row) =>
    mayAct(row) && (
      <Space size={0} wrap>
        {props.rowActions?.(row)}
        {editable && (
          <Button type="link" size="small" icon={<EditOutlined />} onClick={() => open(row)}>
            {t(props.editLabel ?? 'common.edit')}
          </Button>
        )}
        {deletable && <RowDelete reason={props.deleteBlocked?.(row)} onConfirm={() => removeRows([idOf(row)])} />}
      </Space>
    );
  const columns: TableColumnType<Row>[] = fieldsIn(fields, 'column').map((field) => {
    const sorter =
      field.sorter === true ? (a: Row, b: Row) => compareValues((a as Values)[field.key], (b as Values)[field.key]) : field.sorter;
    return {
      key: field.key,
      dataIndex: field.key,
      title: t(field.label),
      width: field.width,
      fixed: field.fixed,
      ellipsis: field.ellipsis,
      sorter,
      render: (_: unknown, row: Row) => {
        const value = (row as Values)[field.key];
        if (field.ellipsis && !field.render && typeof value === 'string' && value)
          return <Typography.Text ellipsis={{ tooltip: value }}>{value}</Typography.Text>;
        return <FieldValue field={field} row={row} />;
      },
    };
  });
  const withActions = editable || deletable || props.rowActions !== undefined;
  if (withActions) {
    columns.push({
      key: 'actions',
      title: t('common.actions'),
      width: 180,
      fixed: mobile ? undefined : 'right',
      render: (_: unknown, row: Row) => actionsOf(row),
    });
  }

  const selection =
    deletable || props.batchActions
      ? { disabled: (row: Row) => !mayAct(row) || (deletable && !props.batchActions && Boolean(props.deleteBlocked?.(row))) }
      : undefined;

  const searchFields = fieldsIn(fields, 'search');
  const detailFields = fieldsIn(fields, 'detail');
  const formFields = fieldsIn(fields, 'form');
  const formTitle = editing ? t(props.titles?.edit ?? 'common.edit') : t(props.titles?.create ?? 'common.create');
  const editForm = (
    <Form name={`${area}Edit`} form={form} layout="vertical" preserve={false}>
      {formFields.map((field) => {
        const facts = fieldFacts(schema, field.key);
        const required = editing !== undefined && (field.required?.(editing) ?? facts.required);
        const hint = editing !== undefined ? field.extra?.(editing) : undefined;
        return (
          <Form.Item
            key={field.key}
            name={field.key}
            label={t(field.label)}
            required={required}
            extra={hint ? t(hint) : undefined}
            valuePropName={field.kind === 'switch' ? 'checked' : 'value'}
            rules={[
              {
                validator: (_, value) => {
                  const problem = checkField(schema, field.key, value, required);
                  return problem
                    ? Promise.reject(new Error(t(problem.key, { ...problem.values, label: t(field.label) })))
                    : Promise.resolve();
                },
              },
            ]}
          >
            <FormControl field={field} facts={facts} editing={editing ?? null} />
          </Form.Item>
        );
      })}
    </Form>
  );
  const detail = editing && detailFields.length > 0 && (
    <Descriptions
      className="kit-detail"
      column={1}
      size="small"
      bordered
      items={detailFields.map((field) => ({ key: field.key, label: t(field.label), children: <FieldValue field={field} row={editing} /> }))}
    />
  );

  return (
    <SearchedKeyword.Provider value={typeof page.filters.keyword === 'string' ? page.filters.keyword : ''}>
      <div className="page-card list-page kit-page" data-testid={testId}>
        <div className="list-toolbar">
          {searchFields.length > 0 && (
            <Form
              name={`${area}Search`}
              form={searchForm}
              layout="inline"
              className="kit-search"
              onFinish={(values) => page.search({ ...props.initialFilters, ...searchFilters(fields, values) })}
            >
              {searchFields.map((field) => (
                <Form.Item key={field.key} name={field.key} label={t(field.label)}>
                  <SearchControl field={field} />
                </Form.Item>
              ))}
              <Space>
                <Button type="primary" htmlType="submit">
                  {t('common.search')}
                </Button>
                <Button
                  onClick={() => {
                    searchForm.resetFields();
                    page.search({ ...props.initialFilters });
                  }}
                >
                  {t('common.reset')}
                </Button>
              </Space>
            </Form>
          )}
          <Space wrap className="kit-actions">
            <Button icon={<ReloadOutlined />} onClick={() => page.query.refetch()} aria-label={t('common.refresh')} />
            {props.toolbar?.(page.filters)}
            {props.batchActions?.(selected, clearSelection)}
            {deletable && (
              <BatchDeleteButton count={selected.length} onConfirm={() => removeRows(selected.map(idOf)).then(clearSelection)} />
            )}
            {creatable && (
              <Button
                type="primary"
                icon={<PlusOutlined />}
                onClick={() => open(null)}
                data-testid={`${testId.replace(/-page$/, '')}-create`}
              >
                {t('common.create')}
              </Button>
            )}
          </Space>
        </div>
        {cards ? (
          <CardList<Row>
            rows={page.list}
            rowKey={idOf}
            // The table's columns, line by line: an ellipsis cell wraps here, the card has the room.
            fields={fieldsIn(fields, 'column').map((field) => ({
              key: field.key,
              label: t(field.label),
              render: (row) => <FieldValue field={field} row={row} />,
            }))}
            actions={withActions ? actionsOf : undefined}
            selection={selection && { selected, onChange: setSelected, disabled: selection.disabled }}
            pagination={page.pagination}
            loading={page.query.isFetching}
            testId={`${testId.replace(/-page$/, '')}-cards`}
          />
        ) : (
          <Table<Row>
            rowKey={rowKey}
            loading={page.query.isFetching}
            dataSource={page.list}
            columns={columns}
            scroll={{ x: tableWidth(fieldsIn(fields, 'column'), withActions) }}
            pagination={page.pagination}
            rowSelection={
              selection && {
                selectedRowKeys: selected.map(idOf),
                onChange: (_, rows) => setSelected(rows),
                getCheckboxProps: (row) => ({ disabled: selection.disabled(row) }),
              }
            }
          />
        )}
        {(props.editIn ?? 'modal') === 'modal' ? (
          <EditModal
            title={formTitle}
            open={editing !== undefined}
            saving={save.isPending}
            onSave={submit}
            onCancel={close}
            width={props.formWidth}
          >
            {detail}
            {editForm}
          </EditModal>
        ) : (
          <Drawer
            title={formTitle}
            open={editing !== undefined}
            onClose={close}
            destroyOnHidden
            size={mobile ? '100%' : (props.formWidth ?? 520)}
            extra={
              editable && (
                <Space>
                  <Button onClick={close}>{t('common.cancel')}</Button>
                  <Button type="primary" loading={save.isPending} onClick={submit}>
                    {t('common.save')}
                  </Button>
                </Space>
              )
            }
          >
            {detail}
            {editForm}
          </Drawer>
        )}
      </div>
    </SearchedKeyword.Provider>
  );
}

function RowDelete({ reason, onConfirm }: { reason: string | undefined; onConfirm: () => Promise<unknown> }) {
  const { t } = useTranslation();
  if (!reason) return <RowDeleteButton onConfirm={onConfirm} />;
  return (
    <Tooltip title={t(reason)}>
      <span>
        <RowDeleteButton disabled onConfirm={onConfirm} />
      </span>
    </Tooltip>
  );
}
