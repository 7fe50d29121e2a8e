import { DatePicker, Segmented, Typography } from 'antd';
import dayjs from 'dayjs';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { formatDate } from '../../lib/format';
import { PRESETS, type Preset, previousRange } from './range';
import { siteToday, useCensusRange, useCensusRangeState } from './store';

/** A day (`YYYY-MM-DD`) as the console writes dates; noon UTC keeps it on its own day in any zone. */
export function showDay(day: string): string {
  return formatDate(`${day}T12:00:00Z`, { timeZone: 'UTC' });
}

/** The statistics' range: presets, a custom pick, and the previous period the figures are compared with. */
export function DateRangeBar({ extra }: { extra?: ReactNode }) {
  const { t } = useTranslation();
  const range = useCensusRange();
  const { choose, pick } = useCensusRangeState();
  const previous = previousRange(range);
  const today = siteToday();
  return (
    <div className="census-range" data-testid="census-range">
      <Segmented<Preset>
        value={range.preset}
        onChange={choose}
        options={PRESETS.map((preset) => ({ value: preset, label: t(`census.preset.${preset}`) }))}
        aria-label={t('census.range')}
      />
      <DatePicker.RangePicker
        value={[dayjs(range.from), dayjs(range.to)]}
        allowClear={false}
        // Days after today in the site's zone have no figures yet.
        disabledDate={(day) => day.format('YYYY-MM-DD') > today}
        onChange={(picked) => {
          const [from, to] = picked ?? [];
          if (from && to) pick({ from: from.format('YYYY-MM-DD'), to: to.format('YYYY-MM-DD') });
        }}
        aria-label={t('census.range')}
        data-testid="census-range-picker"
      />
      <Typography.Text type="secondary" className="census-previous">
        {t('census.comparedWith', { from: showDay(previous.from), to: showDay(previous.to) })}
      </Typography.Text>
      {extra ? <span className="census-range-extra">{extra}</span> : null}
    </div>
  );
}
