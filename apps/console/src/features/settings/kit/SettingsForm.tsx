import type { SettingsAnswer, SettingsOf, SettingsPage } from '@parley/protocol';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Alert, Button, Card, Form, Result, Spin, Tabs, Typography } from 'antd';
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { toastSuccess } from '../../../lib/feedback';
import { factsOf, schemaAt } from '../../shared/fields';
import { loadSettings, saveSettings, schemaOf, secretStored } from './api';
import { type Checker, SettingFields } from './SettingControl';
import type { Device, FormValues, PageSpec } from './spec';
import { useCheckedForm } from './useCheckedForm';
import type { FieldPath } from './validate';
import './settings.css';

const DEVICES: Device[] = ['pc', 'mobile'];

function Editor<P extends SettingsPage>({ spec, stored }: { spec: PageSpec<P>; stored: SettingsAnswer<P> }) {
  const { t } = useTranslation();
  const client = useQueryClient();
  const schema = schemaOf(spec.page);
  const initial = useMemo(() => (spec.toForm ? spec.toForm(stored) : (stored as FormValues)), [spec, stored]);
  const save = useMutation({
    mutationFn: (value: SettingsOf<P>) => saveSettings(spec.page, value),
    onSuccess: (saved) => {
      client.setQueryData(['settings', spec.page], saved);
      toastSuccess(t('common.saved'));
    },
  });
  const {
    form,
    values,
    problemAt,
    preview: previewed,
    submit,
  } = useCheckedForm<SettingsOf<P>>({
    schema,
    stored,
    fromForm: spec.fromForm,
    onValid: (value) => save.mutate(value),
  });
  const checker: Checker = {
    problemAt,
    factsAt: (path: FieldPath) => factsOf(schemaAt(schema, path)),
    values,
    secretStored: (path: FieldPath) => secretStored(stored, path),
  };
  const preview = spec.preview;
  const fields = spec.devices ? (
    <Tabs
      items={DEVICES.map((device) => ({
        key: device,
        label: t(`settings.kit.${device}`),
        forceRender: true,
        children: <SettingFields fields={spec.fields} name={[device]} path={[device]} checker={checker} />,
      }))}
    />
  ) : (
    <SettingFields fields={spec.fields} name={[]} path={[]} checker={checker} />
  );
  return (
    <div className={preview ? 'settings-body with-preview' : 'settings-body'}>
      <Form
        form={form}
        layout="vertical"
        initialValues={initial}
        onFinish={submit}
        className="settings-form"
        data-testid="settings-form"
        scrollToFirstError
      >
        {fields}
        <div className="settings-actions">
          <Button type="primary" htmlType="submit" loading={save.isPending} data-testid="settings-save">
            {t('common.save')}
          </Button>
          <Button onClick={() => form.resetFields()}>{t('common.reset')}</Button>
        </div>
      </Form>
      {preview && (
        <aside className="settings-preview" aria-label={t('settings.kit.preview')} data-testid="settings-preview">
          <Typography.Title level={5}>{t('settings.kit.preview')}</Typography.Title>
          {spec.devices ? (
            DEVICES.map((device) => (
              <Card key={device} size="small" title={t(`settings.kit.${device}`)}>
                {preview(previewed, device)}
              </Card>
            ))
          ) : (
            <Card size="small">{preview(previewed, 'pc')}</Card>
          )}
        </aside>
      )}
    </div>
  );
}

/** One settings page: its stored values loaded, drawn as a form from its field list, checked by its schema, saved whole. */
export function SettingsForm<P extends SettingsPage>({ spec }: { spec: PageSpec<P> }) {
  const { t } = useTranslation();
  const query = useQuery({ queryKey: ['settings', spec.page], queryFn: () => loadSettings(spec.page), retry: false });
  return (
    <div className="page-card settings-page" data-testid={`settings-${spec.page}`}>
      <Typography.Title level={4}>{t(`route.${spec.page}`)}</Typography.Title>
      {spec.intro && <Alert type="info" showIcon message={t(spec.intro)} className="settings-intro" />}
      {query.isPending ? (
        <Spin />
      ) : query.data ? (
        <Editor key={query.dataUpdatedAt} spec={spec} stored={query.data} />
      ) : (
        <Result
          status="error"
          title={t('settings.kit.loadFailed')}
          extra={<Button onClick={() => query.refetch()}>{t('common.retry')}</Button>}
        />
      )}
    </div>
  );
}
