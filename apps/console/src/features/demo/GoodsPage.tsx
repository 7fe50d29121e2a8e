import { Alert, Card, Col, Row, Space, Tag, Typography } from 'antd';
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { RouteIcon } from '../../app/icons';
import { goodsItems } from './mock';

/** Sample content (VITE_PARLEY_DEMO=1 only): the template's mall page, a card grid of seven mock goods. */
export default function GoodsPage() {
  const { t, i18n } = useTranslation();
  const goods = useMemo(() => goodsItems(), []);
  const price = new Intl.NumberFormat(i18n.language === 'zh' ? 'zh-CN' : 'en-US', { style: 'currency', currency: 'CNY' });
  return (
    <div className="page-card" data-testid="demo-goods">
      <Alert type="info" showIcon title={t('demo.notice')} className="demo-notice" />
      <Row gutter={[16, 16]}>
        {goods.map((item) => (
          <Col key={item.uuid} xs={24} sm={12} lg={8} xl={6}>
            <Card
              hoverable
              cover={<img alt={item.title} src={item.image} style={{ height: 140, objectFit: 'cover' }} />}
              actions={[
                <a key="open" href={item.url} target="_blank" rel="noopener noreferrer">
                  {t('demo.goods.open')}
                </a>,
              ]}
            >
              <Card.Meta
                avatar={<RouteIcon name={item.icon} />}
                title={item.title}
                description={<Typography.Paragraph ellipsis={{ rows: 2 }}>{item.description}</Typography.Paragraph>}
              />
              <Space wrap size={[4, 8]} style={{ marginTop: 4 }}>
                {item.label.map((label) => (
                  <Tag key={label} color="blue">
                    {label}
                  </Tag>
                ))}
              </Space>
              <div style={{ display: 'flex', justifyContent: 'space-between', alignItems: 'baseline', marginTop: 12 }}>
                <Typography.Text strong type="danger" style={{ fontSize: 18 }}>
                  {price.format(item.price)}
                </Typography.Text>
                <Typography.Text type="secondary">{item.company}</Typography.Text>
              </div>
            </Card>
          </Col>
        ))}
      </Row>
    </div>
  );
}
