import { DeleteOutlined, PlusOutlined, UploadOutlined } from '@ant-design/icons';
import { MAX_ROBOT_QUESTION_LENGTH, MAX_ROBOT_QUESTIONS } from '@parley/protocol';
import { Button, Image, Input, Space, Upload } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { upload } from '../../lib/api';

/**
 * The phrasings of one question, one line each: a visitor may ask the same thing in many ways, and the
 * robot matches against all of them. There is always at least one line.
 */
export function QuestionsInput({ value, onChange, id }: { value?: string[]; onChange?: (next: string[]) => void; id?: string }) {
  const { t } = useTranslation();
  const lines = value && value.length > 0 ? value : [''];
  const set = (index: number, text: string) => onChange?.(lines.map((line, at) => (at === index ? text : line)));
  return (
    <div className="robot-questions" id={id}>
      {lines.map((line, index) => (
        // A phrasing has no identity of its own: its place in the list is what is being edited.
        // biome-ignore lint/suspicious/noArrayIndexKey: see above
        <Space.Compact key={index} block>
          <Input
            value={line}
            maxLength={MAX_ROBOT_QUESTION_LENGTH}
            placeholder={t('robots.ask.phrasingPlaceholder', { n: index + 1 })}
            aria-label={t('robots.ask.phrasing', { n: index + 1 })}
            onChange={(event) => set(index, event.target.value)}
            data-testid="robot-question"
          />
          <Button
            icon={<DeleteOutlined />}
            aria-label={t('robots.ask.removePhrasing', { n: index + 1 })}
            disabled={lines.length <= 1}
            onClick={() => onChange?.(lines.filter((_, at) => at !== index))}
          />
        </Space.Compact>
      ))}
      <Button
        type="dashed"
        block
        icon={<PlusOutlined />}
        disabled={lines.length >= MAX_ROBOT_QUESTIONS}
        onClick={() => onChange?.([...lines, ''])}
        data-testid="robot-question-add"
      >
        {t('robots.ask.addPhrasing')}
      </Button>
    </div>
  );
}

/** A picture (under an answer, the robot's avatar): a web address typed in, or a file uploaded to this server. */
export function ImageInput({
  value,
  onChange,
  id,
  'data-testid': testId = 'robot-image',
}: {
  value?: string;
  onChange?: (next: string) => void;
  id?: string;
  'data-testid'?: string;
}) {
  const { t } = useTranslation();
  const [uploading, setUploading] = useState(false);
  const send = (file: File) => {
    setUploading(true);
    upload('POST /api/talk/upload', file)
      .then((stored) => onChange?.(stored.url))
      .catch(() => undefined)
      .finally(() => setUploading(false));
  };
  return (
    <div className="robot-image">
      <Space.Compact block>
        <Input
          id={id}
          value={value}
          maxLength={512}
          placeholder="https://"
          allowClear
          onChange={(event) => onChange?.(event.target.value)}
          data-testid={testId}
        />
        <Upload
          accept="image/png,image/jpeg,image/gif,image/webp"
          showUploadList={false}
          beforeUpload={(file) => {
            send(file);
            return false;
          }}
        >
          <Button icon={<UploadOutlined />} loading={uploading}>
            {t('robots.ask.upload')}
          </Button>
        </Upload>
      </Space.Compact>
      {value && /^(https?:\/\/|\/(?!\/))/i.test(value) && <Image className="robot-image-preview" src={value} alt="" width={96} />}
    </div>
  );
}
