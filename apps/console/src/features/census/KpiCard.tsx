import { ArrowDownOutlined, ArrowUpOutlined } from '@ant-design/icons';
import { Card, Statistic, Typography, theme } from 'antd';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { change } from './figures';

export interface KpiCardProps {
  title: string;
  value: number | null;
  /** The same figure over the previous period; no delta is shown without one. */
  previous?: number | null;
  format: (value: number) => string;
  /** A time to answer gets better as it falls. */
  lowerIsBetter?: boolean;
  footer?: ReactNode;
  testId?: string;
}

/** One figure of the period with its change from the period before, coloured by whether it got better. */
export function KpiCard({ title, value, previous, format, lowerIsBetter, footer, testId }: KpiCardProps) {
  const { t } = useTranslation();
  const { token } = theme.useToken();
  const delta = previous === undefined ? null : change(value, previous);
  const better = delta !== null && delta !== 0 && delta > 0 !== Boolean(lowerIsBetter);
  const colour = delta === null || delta === 0 ? token.colorTextSecondary : better ? token.colorSuccess : token.colorError;
  return (
    <Card size="small" className="census-kpi" data-testid={testId}>
      <Statistic title={title} value={value === null ? '-' : format(value)} />
      {previous === undefined ? null : (
        <Typography.Text style={{ color: colour }} className="census-delta">
          {delta === null ? (
            t('census.noPrevious')
          ) : (
            <>
              {delta > 0 ? <ArrowUpOutlined /> : delta < 0 ? <ArrowDownOutlined /> : null}{' '}
              {t('census.delta', {
                change: `${Math.abs(Math.round(delta * 1000) / 10)}%`,
                before: previous === null ? '-' : format(previous),
              })}
            </>
          )}
        </Typography.Text>
      )}
      {footer ? <div className="census-kpi-footer">{footer}</div> : null}
    </Card>
  );
}
