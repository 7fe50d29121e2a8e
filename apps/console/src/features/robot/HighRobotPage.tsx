import { RobotOutlined } from '@ant-design/icons';
import { ROBOT_MODES, type RobotHighAnswer, type RobotHighSettings, robotHighSettings } from '@parley/protocol';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Avatar, Button, Form, Input, InputNumber, Radio, Result, Select, Slider, Spin, Switch, Typography, theme } from 'antd';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { call } from '../../lib/api';
import { toastSuccess } from '../../lib/feedback';
import { routeTitle } from '../../lib/i18n';
import { problemRule, useCheckedForm } from '../settings/kit/useCheckedForm';
import type { FieldPath } from '../settings/kit/validate';
import { ImageInput } from './AskInputs';
import { highRobotKey, useHighRobot } from './queries';
import '../settings/kit/settings.css';
import '../settings/preview/preview.css';
import './robot.css';

/** The form holds the threshold as a whole percentage (what the slider shows); the settings hold 0..1. */
type FormValues = Omit<RobotHighSettings, 'threshold'> & { threshold: number };

function toForm(value: RobotHighSettings): FormValues {
  return { ...value, threshold: Math.round(value.threshold * 100) };
}

function fromForm(values: FormValues): unknown {
  return { ...values, threshold: typeof values.threshold === 'number' ? values.threshold / 100 : values.threshold };
}

/** The robot as a visitor meets it: its name and picture at the top, its welcome, and what it says when it has no answer. */
function RobotPreview({ value }: { value: RobotHighSettings }) {
  const { t } = useTranslation();
  // The widget draws the robot in the site's colour; the console's own stands in for it here.
  const { token } = theme.useToken();
  const face = <Avatar size={28} src={value.avatar || undefined} icon={<RobotOutlined />} className="robot-face" />;
  return (
    <div className="mock-window robot-preview" data-testid="robot-preview">
      <div className="mock-window-head robot-preview-head" style={{ background: token.colorPrimary }}>
        {face}
        <span data-testid="robot-preview-name">{value.name}</span>
      </div>
      <div className="mock-window-body">
        <div className="robot-line">
          {face}
          <div className="mock-bubble" data-testid="robot-preview-welcome">
            {value.welcome || <span className="muted">{t('robots.high.preview.noWelcome')}</span>}
          </div>
        </div>
        <div className="mock-bubble mine" style={{ background: token.colorPrimary }}>
          {t('robots.high.preview.visitor')}
        </div>
        {value.unknownReply && (
          <div className="robot-line">
            {face}
            <div className="mock-bubble">{value.unknownReply}</div>
          </div>
        )}
      </div>
      <div className="mock-window-input">{t('settings.preview.inputPlaceholder')}</div>
    </div>
  );
}

function Group({ title, children }: { title: string; children: ReactNode }) {
  return (
    <fieldset className="settings-group">
      <legend>{title}</legend>
      {children}
    </fieldset>
  );
}

function Editor({ stored }: { stored: RobotHighAnswer }) {
  const { t } = useTranslation();
  const client = useQueryClient();
  const save = useMutation({
    mutationFn: (value: RobotHighSettings) => call('POST /api/robot/high', value),
    onSuccess: (saved) => {
      client.setQueryData(highRobotKey, saved);
      toastSuccess(t('common.saved'));
    },
  });
  const { form, problemAt, preview, submit } = useCheckedForm<RobotHighSettings, FormValues>({
    schema: robotHighSettings,
    stored,
    fromForm,
    onValid: (value) => save.mutate(value),
  });
  const llmOn = Form.useWatch(['llm', 'enabled'], form);
  const embeddingsOn = Form.useWatch(['embeddings', 'enabled'], form);
  const mode = Form.useWatch('mode', form);
  // The key is never answered back, only whether one is stored: there is something to keep only then.
  const keyStored = stored.llm.hasApiKey;
  const embeddingsKeyStored = stored.embeddings.hasApiKey;
  const label = (key: string) => t(`robots.high.${key}`);
  const item = (path: FieldPath, key: string) => ({
    name: path,
    label: label(key),
    rules: [problemRule(t, label(key), () => problemAt(path))],
  });

  return (
    <div className="settings-body with-preview">
      <Form<FormValues>
        form={form}
        layout="vertical"
        initialValues={toForm(stored)}
        onFinish={submit}
        className="settings-form"
        data-testid="robot-high-form"
        scrollToFirstError
      >
        <Group title={label('groups.robot')}>
          <Form.Item {...item(['enabled'], 'enabled')} valuePropName="checked" extra={label('enabledHint')}>
            <Switch data-testid="robot-high-enabled" />
          </Form.Item>
          <Form.Item {...item(['name'], 'name')}>
            <Input maxLength={32} data-testid="robot-high-name" />
          </Form.Item>
          <Form.Item {...item(['avatar'], 'avatar')} extra={label('avatarHint')}>
            <ImageInput data-testid="robot-high-avatar" />
          </Form.Item>
          <Form.Item {...item(['mode'], 'mode')} extra={mode ? label(`modeHints.${mode}`) : undefined}>
            <Radio.Group
              optionType="button"
              options={ROBOT_MODES.map((value) => ({ value, label: label(`modes.${value}`) }))}
              data-testid="robot-high-mode"
            />
          </Form.Item>
        </Group>

        <Group title={label('groups.replies')}>
          <Form.Item {...item(['welcome'], 'welcome')}>
            <Input.TextArea maxLength={500} showCount autoSize={{ minRows: 2, maxRows: 6 }} data-testid="robot-high-welcome" />
          </Form.Item>
          <Form.Item {...item(['unknownReply'], 'unknownReply')} extra={label('unknownReplyHint')} className="robot-counted">
            <Input.TextArea maxLength={500} showCount autoSize={{ minRows: 2, maxRows: 6 }} data-testid="robot-high-unknown" />
          </Form.Item>
          <Form.Item {...item(['threshold'], 'threshold')} extra={label('thresholdHint')}>
            <Slider
              min={0}
              max={100}
              marks={{ 0: '0%', 50: '50%', 100: '100%' }}
              tooltip={{ formatter: (value) => `${value ?? 0}%` }}
              // antd puts aria-label on the track; the handle is what takes focus and needs the name.
              ariaLabelForHandle={label('threshold')}
              data-testid="robot-high-threshold"
            />
          </Form.Item>
        </Group>

        <Group title={label('groups.handover')}>
          <Form.Item {...item(['handoverKeywords'], 'handoverKeywords')} extra={label('handoverKeywordsHint')}>
            <Select
              mode="tags"
              open={false}
              suffixIcon={null}
              tokenSeparators={[',', '，']}
              maxCount={50}
              aria-label={label('handoverKeywords')}
              data-testid="robot-high-keywords"
            />
          </Form.Item>
          <Form.Item {...item(['handoverAfterUnknown'], 'handoverAfterUnknown')} extra={label('handoverAfterUnknownHint')}>
            <InputNumber min={0} max={20} precision={0} style={{ width: 160 }} data-testid="robot-high-misses" />
          </Form.Item>
        </Group>

        <Group title={label('groups.llm')}>
          <Form.Item {...item(['llm', 'enabled'], 'llm.enabled')} valuePropName="checked" extra={label('llm.enabledHint')}>
            <Switch data-testid="robot-high-llm" />
          </Form.Item>
          {llmOn && (
            <>
              <Form.Item {...item(['llm', 'baseUrl'], 'llm.baseUrl')} extra={label('llm.baseUrlHint')}>
                <Input maxLength={512} placeholder="https://api.example.com/v1" data-testid="robot-high-llm-url" />
              </Form.Item>
              <Form.Item {...item(['llm', 'model'], 'llm.model')}>
                <Input maxLength={128} data-testid="robot-high-llm-model" />
              </Form.Item>
              <Form.Item {...item(['llm', 'apiKey'], 'llm.apiKey')} extra={label(keyStored ? 'llm.apiKeyStored' : 'llm.apiKeyHint')}>
                <Input.Password
                  maxLength={512}
                  autoComplete="new-password"
                  placeholder={keyStored ? label('llm.apiKeyKeep') : undefined}
                  data-testid="robot-high-llm-key"
                />
              </Form.Item>
              <Form.Item {...item(['llm', 'timeoutMs'], 'llm.timeoutMs')}>
                <InputNumber min={500} max={60_000} step={500} precision={0} style={{ width: 160 }} />
              </Form.Item>
            </>
          )}
        </Group>

        <Group title={label('groups.embeddings')}>
          <Form.Item
            {...item(['embeddings', 'enabled'], 'embeddings.enabled')}
            valuePropName="checked"
            extra={label('embeddings.enabledHint')}
          >
            <Switch data-testid="robot-high-embeddings" />
          </Form.Item>
          {embeddingsOn && (
            <>
              <Form.Item {...item(['embeddings', 'baseUrl'], 'llm.baseUrl')} extra={label('embeddings.baseUrlHint')}>
                <Input maxLength={512} placeholder="http://127.0.0.1:11434/v1" data-testid="robot-high-embeddings-url" />
              </Form.Item>
              <Form.Item {...item(['embeddings', 'model'], 'llm.model')}>
                <Input maxLength={128} data-testid="robot-high-embeddings-model" />
              </Form.Item>
              <Form.Item
                {...item(['embeddings', 'apiKey'], 'llm.apiKey')}
                extra={label(embeddingsKeyStored ? 'llm.apiKeyStored' : 'llm.apiKeyHint')}
              >
                <Input.Password
                  maxLength={512}
                  autoComplete="new-password"
                  placeholder={embeddingsKeyStored ? label('llm.apiKeyKeep') : undefined}
                  data-testid="robot-high-embeddings-key"
                />
              </Form.Item>
              <Form.Item {...item(['embeddings', 'timeoutMs'], 'llm.timeoutMs')}>
                <InputNumber min={500} max={60_000} step={500} precision={0} style={{ width: 160 }} />
              </Form.Item>
            </>
          )}
        </Group>

        <div className="settings-actions">
          <Button type="primary" htmlType="submit" loading={save.isPending} data-testid="robot-high-save">
            {t('common.save')}
          </Button>
          <Button onClick={() => form.resetFields()}>{t('common.reset')}</Button>
        </div>
      </Form>
      <aside className="settings-preview" aria-label={t('settings.kit.preview')} data-testid="settings-preview">
        <Typography.Title level={5}>{t('settings.kit.preview')}</Typography.Title>
        <RobotPreview value={preview} />
      </aside>
    </div>
  );
}

/** The smart robot: whether and when it answers visitors, what it says, when it hands over, and an optional language model. */
export default function HighRobotPage() {
  const { t } = useTranslation();
  const query = useHighRobot();
  return (
    <div className="page-card robot-high" data-testid="robot-high-page">
      <Typography.Title level={4}>{routeTitle('highRobot')}</Typography.Title>
      {query.isPending ? (
        <Spin />
      ) : query.data ? (
        <Editor key={query.dataUpdatedAt} stored={query.data} />
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
