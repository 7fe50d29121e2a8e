import { DeleteOutlined, EditOutlined, PlusOutlined, ReloadOutlined, SearchOutlined } from '@ant-design/icons';
import { grantable, PERMISSION_LABELS, PERMISSIONS, type Permission, type Role } from '@parley/protocol';
import { Button, Checkbox, Form, Input, Space, Table, Tag, Tooltip } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Permission as Allowed, useAccess } from '../../lib/access';
import { BatchDeleteButton, RowDeleteButton } from '../shared/DeleteButtons';
import { EditModal } from '../shared/EditModal';
import { formatTime, useListMutations, useListPage } from '../shared/list';

interface RoleForm {
  id?: number;
  name: string;
  permissions: Permission[];
}

const MANAGE = { permission: ['setPermissions:roleManagement'] };

export default function RolePage() {
  const { t, i18n } = useTranslation();
  const lang = i18n.language === 'en' ? 'en' : 'zh';
  const page = useListPage('role');
  const { save, remove } = useListMutations('role');
  const [editing, setEditing] = useState<RoleForm | null>(null);
  const [selected, setSelected] = useState<number[]>([]);
  const [form] = Form.useForm<RoleForm>();
  const [searchForm] = Form.useForm<{ name?: string }>();
  const access = useAccess();
  // The server refuses what the user may not grant (CONTRACT §3); the page offers only the rest.
  const mayManage = (role: Role) => grantable(access, { roles: [role.name], permissions: role.permissions });
  const mayGive = (permission: Permission) => grantable(access, { roles: [], permissions: [permission] });

  const open = (role?: Role) => {
    const value: RoleForm = role
      ? {
          id: role.id,
          name: role.name,
          permissions: role.permissions.filter((item): item is Permission => (PERMISSIONS as readonly string[]).includes(item)),
        }
      : { name: '', permissions: [] };
    setEditing(value);
    form.setFieldsValue(value);
  };

  const submit = async () => {
    const values = await form.validateFields();
    await save.mutateAsync({ ...values, id: editing?.id });
    setEditing(null);
  };

  return (
    <div className="page-card list-page" data-testid="role-page">
      <div className="list-toolbar">
        <Form
          name="roleSearch"
          form={searchForm}
          layout="inline"
          onFinish={(values) => page.search({ name: values.name?.trim() || undefined })}
        >
          <Form.Item name="name">
            <Input allowClear placeholder={t('role.name')} prefix={<SearchOutlined />} />
          </Form.Item>
          <Button type="primary" htmlType="submit">
            {t('common.search')}
          </Button>
        </Form>
        <Allowed guard={MANAGE}>
          <Space wrap>
            <Button icon={<ReloadOutlined />} onClick={() => page.query.refetch()} aria-label={t('common.refresh')} />
            <BatchDeleteButton count={selected.length} onConfirm={() => remove.mutateAsync(selected).then(() => setSelected([]))} />
            <Button type="primary" icon={<PlusOutlined />} onClick={() => open()} data-testid="role-create">
              {t('common.create')}
            </Button>
          </Space>
        </Allowed>
      </div>
      <Table<Role>
        rowKey="id"
        loading={page.query.isFetching}
        dataSource={page.list}
        scroll={{ x: 900 }}
        rowSelection={{
          selectedRowKeys: selected,
          onChange: (keys) => setSelected(keys.map(Number)),
          getCheckboxProps: (role) => ({ disabled: role.builtin || !mayManage(role) }),
        }}
        pagination={page.pagination}
        columns={[
          {
            title: t('role.name'),
            dataIndex: 'name',
            width: 180,
            render: (name: string, role) => (
              <Space>
                <span>{name}</span>
                {role.builtin && <Tag>{t('role.builtin')}</Tag>}
              </Space>
            ),
          },
          {
            title: t('role.permissions'),
            dataIndex: 'permissions',
            render: (permissions: string[], role) =>
              role.name === 'Admin' ? (
                <Tag color="gold">{t('role.allPermissions')}</Tag>
              ) : permissions.length === 0 ? (
                <span className="muted">{t('role.noPermissions')}</span>
              ) : (
                <Space size={[4, 4]} wrap>
                  {permissions.map((item) => (
                    <Tag key={item} color="blue">
                      {PERMISSION_LABELS[item as Permission]?.[lang] ?? item}
                    </Tag>
                  ))}
                </Space>
              ),
          },
          { title: t('role.agents'), dataIndex: 'agents', width: 100 },
          { title: t('common.createdAt'), dataIndex: 'created_at', width: 190, render: (value: string) => formatTime(value, lang) },
          {
            title: t('common.actions'),
            key: 'actions',
            width: 150,
            fixed: 'right',
            render: (_, role) =>
              mayManage(role) && (
                <Space>
                  <Button type="link" size="small" icon={<EditOutlined />} onClick={() => open(role)}>
                    {t('common.edit')}
                  </Button>
                  {role.builtin ? (
                    <Tooltip title={t('role.builtinHint')}>
                      <Button type="link" size="small" danger disabled icon={<DeleteOutlined />} />
                    </Tooltip>
                  ) : (
                    <RowDeleteButton onConfirm={() => remove.mutateAsync([role.id])} />
                  )}
                </Space>
              ),
          },
        ]}
      />
      <EditModal
        title={editing?.id ? t('role.editTitle') : t('role.createTitle')}
        open={editing !== null}
        saving={save.isPending}
        onSave={submit}
        onCancel={() => setEditing(null)}
        width={560}
      >
        <Form name="roleEdit" form={form} layout="vertical" preserve={false}>
          <Form.Item
            name="name"
            label={t('role.name')}
            rules={[{ required: true, whitespace: true, message: t('role.nameRequired') }, { max: 64 }]}
          >
            <Input maxLength={64} disabled={editing?.name === 'Admin' || editing?.name === 'Agent'} />
          </Form.Item>
          <Form.Item name="permissions" label={t('role.permissions')}>
            <Checkbox.Group
              className="permission-grid"
              options={PERMISSIONS.map((item) => ({ value: item, label: PERMISSION_LABELS[item][lang], disabled: !mayGive(item) }))}
            />
          </Form.Item>
        </Form>
      </EditModal>
    </div>
  );
}
