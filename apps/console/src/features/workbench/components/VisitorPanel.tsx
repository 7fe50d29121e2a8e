import { LinkOutlined } from '@ant-design/icons';
import type { Visit, Visitor } from '@parley/protocol';
import { Descriptions, Empty, Tag, Timeline } from 'antd';
import { useTranslation } from 'react-i18next';
import { formatDateTime } from '../../../lib/format';
import { safeUrl, sourceTitle } from '../model';

/** Percent-escapes shown as the characters they stand for (a Chinese search keyword, say); the link keeps the real URL. */
function readableUrl(url: string): string {
  try {
    return decodeURI(url);
  } catch {
    return url;
  }
}

/** Everything known about the visitor on screen, and the pages it opens as it opens them (8010). */
export function VisitorPanel({ visitor, visits }: { visitor: Visitor; visits: Visit[] | undefined }) {
  const { t } = useTranslation();
  const dash = t('workbench.panel.unknown');
  const value = (text: string) => text || dash;
  const link = (url: string) => {
    const href = safeUrl(url);
    return href ? (
      <a href={href} target="_blank" rel="noopener noreferrer nofollow" className="wb-url">
        {readableUrl(url)}
      </a>
    ) : (
      value(url)
    );
  };
  return (
    <div className="wb-panel" data-testid="wb-panel">
      <div className="wb-panel-head">
        <div className="wb-panel-name">{visitor.nickname}</div>
        <div className="wb-panel-source">{sourceTitle(visitor, t)}</div>
      </div>
      <Descriptions
        column={1}
        colon={false}
        size="small"
        className="wb-facts"
        items={[
          // What the site told (CONTRACT §13): its user id once verified, and the contact it knows.
          ...(visitor.userId
            ? [
                {
                  key: 'userId',
                  label: t('workbench.panel.userId'),
                  children: (
                    <span data-testid="wb-user-id">
                      {visitor.userId} <Tag color="green">{t('workbench.panel.verified')}</Tag>
                    </span>
                  ),
                },
              ]
            : []),
          ...(visitor.email ? [{ key: 'email', label: t('workbench.panel.email'), children: visitor.email }] : []),
          ...(visitor.phone ? [{ key: 'phone', label: t('workbench.panel.phone'), children: visitor.phone }] : []),
          { key: 'region', label: t('workbench.panel.region'), children: value(visitor.region) },
          { key: 'platform', label: t('workbench.panel.platform'), children: value(visitor.platform) },
          { key: 'browser', label: t('workbench.panel.browser'), children: value(visitor.browser) },
          { key: 'channel', label: t('workbench.panel.channel'), children: <Tag>{t(`workbench.channel.${visitor.channel}`)}</Tag> },
          { key: 'engine', label: t('workbench.panel.engine'), children: value(visitor.engine) },
          { key: 'keyword', label: t('workbench.panel.keyword'), children: value(visitor.keyword) },
          { key: 'referrer', label: t('workbench.panel.referrer'), children: link(visitor.referrer) },
          { key: 'firstUrl', label: t('workbench.panel.firstUrl'), children: link(visitor.firstUrl) },
          { key: 'created', label: t('workbench.panel.firstVisit'), children: formatDateTime(visitor.created_at) },
        ]}
      />
      {visitor.attributes && Object.keys(visitor.attributes).length > 0 ? (
        <>
          <div className="wb-panel-section">{t('workbench.panel.attributes')}</div>
          <Descriptions
            column={1}
            colon={false}
            size="small"
            className="wb-facts"
            data-testid="wb-attributes"
            items={Object.entries(visitor.attributes).map(([key, given]) => ({ key, label: key, children: String(given) }))}
          />
        </>
      ) : null}
      <div className="wb-panel-section">
        <LinkOutlined /> {t('workbench.panel.visits')}
        <span className="wb-group-count">{visits?.length ?? 0}</span>
      </div>
      {visits && visits.length > 0 ? (
        <Timeline
          className="wb-visits"
          items={visits.map((visit) => ({
            key: `${visit.created_at}-${visit.URL}`,
            content: (
              <div className="wb-visit" data-testid="wb-visit">
                <div className="wb-visit-title">{visit.title || visit.URL}</div>
                <div className="wb-visit-url">{link(visit.URL)}</div>
                <div className="wb-visit-time">{formatDateTime(visit.created_at)}</div>
              </div>
            ),
          }))}
        />
      ) : (
        <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('workbench.panel.noVisits')} />
      )}
    </div>
  );
}
