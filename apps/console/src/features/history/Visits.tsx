import type { Visit } from '@parley/protocol';
import { Empty, Timeline, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { formatDateTime } from '../../lib/format';

/** The pages a visitor opened, newest first. Addresses are shown as text and open in a new window. */
export function Visits({ visits }: { visits: Visit[] }) {
  const { t } = useTranslation();
  if (visits.length === 0) return <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('records.noVisits')} />;
  return (
    <div className="records-visits" data-testid="visits">
      <Timeline
        items={visits.map((visit, index) => ({
          key: `${visit.created_at}-${index}`,
          content: (
            <>
              <div>{visit.title || <span className="records-muted">{t('records.untitled')}</span>}</div>
              <Typography.Link href={safeHref(visit.URL)} target="_blank" rel="noopener noreferrer">
                {visit.URL}
              </Typography.Link>
              <div className="records-muted">{formatDateTime(visit.created_at)}</div>
            </>
          ),
        }))}
      />
    </div>
  );
}

/** Only web addresses become links: a `javascript:` address a visitor's page reported stays text. */
function safeHref(url: string): string | undefined {
  return /^https?:\/\//i.test(url) ? url : undefined;
}
