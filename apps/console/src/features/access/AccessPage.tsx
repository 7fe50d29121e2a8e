import { DownloadOutlined, EyeOutlined } from '@ant-design/icons';
import { useQuery } from '@tanstack/react-query';
import { Button, Card, Col, Empty, List, Row, Skeleton, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { call } from '../../lib/api';
import { ApiTokens } from './ApiTokens';
import { Identity } from './Identity';
import { Webhooks } from './Webhooks';
import './access.css';

/** `/access/access`: how to put the chat on a site — the embed script, the chat page, its QR code and the chat links. */
export default function AccessPage() {
  const { t } = useTranslation();
  const [preview, setPreview] = useState(false);
  const { data } = useQuery({ queryKey: ['access'], queryFn: () => call('GET /api/access') });
  if (!data) return <Skeleton active />;
  const copyable = (text: string) => ({ text, tooltips: [t('access.copy'), t('access.copied')] });
  return (
    <Row gutter={[16, 16]} className="access-page">
      <Col xs={24} xl={14}>
        <Card title={t('access.scriptTitle')} className="access-card">
          <Typography.Paragraph type="secondary">{t('access.scriptHint')}</Typography.Paragraph>
          <Typography.Paragraph copyable={copyable(data.script)} className="access-code" data-testid="access-script">
            <code>{data.script}</code>
          </Typography.Paragraph>
        </Card>
        <Card title={t('access.chatTitle')} className="access-card">
          <Typography.Paragraph type="secondary">{t('access.chatHint')}</Typography.Paragraph>
          <Typography.Paragraph copyable={copyable(data.chatUrl)} data-testid="access-chat-url">
            <a href={data.chatUrl} target="_blank" rel="noopener noreferrer">
              {data.chatUrl}
            </a>
          </Typography.Paragraph>
        </Card>
        <Card title={t('access.linksTitle')} className="access-card">
          {data.links.length === 0 ? (
            <Empty description={t('access.noLinks')} />
          ) : (
            <List
              size="small"
              dataSource={data.links}
              data-testid="access-links"
              renderItem={(link) => (
                <List.Item>
                  <List.Item.Meta
                    title={link.name}
                    description={
                      <Typography.Text copyable={copyable(link.url)} className="access-link-url">
                        {link.url}
                      </Typography.Text>
                    }
                  />
                </List.Item>
              )}
            />
          )}
        </Card>
      </Col>
      <Col xs={24} xl={10}>
        <Card title={t('access.qrTitle')} className="access-card access-qr">
          <img src={data.qrCode} alt={t('access.qrAlt')} width={200} height={200} data-testid="access-qr" />
          <Button icon={<DownloadOutlined />} href={data.qrCode} download="parley-chat-qr.png">
            {t('access.download')}
          </Button>
        </Card>
        <Card
          title={t('access.previewTitle')}
          className="access-card"
          extra={
            preview ? null : (
              <Button icon={<EyeOutlined />} onClick={() => setPreview(true)} data-testid="access-preview">
                {t('access.preview')}
              </Button>
            )
          }
        >
          {preview ? (
            // Same origin: the console's own chat page, as a visitor sees it.
            <iframe src="/chat" title={t('access.previewTitle')} className="access-preview" />
          ) : (
            <Typography.Text type="secondary">{t('access.previewHint')}</Typography.Text>
          )}
        </Card>
      </Col>
      <Col xs={24}>
        <Identity />
      </Col>
      <Col xs={24}>
        <ApiTokens />
      </Col>
      <Col xs={24}>
        <Webhooks />
      </Col>
    </Row>
  );
}
