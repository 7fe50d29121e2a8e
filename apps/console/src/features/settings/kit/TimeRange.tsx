import { TimePicker } from 'antd';
import dayjs, { type Dayjs } from 'dayjs';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';

export interface Span {
  from: string;
  to: string;
}

const FORMAT = 'HH:mm';

function moment(clock: string): Dayjs {
  return dayjs(`2000-01-01T${clock}`);
}

type Ends = [Dayjs | null, Dayjs | null];

/**
 * A span of the day as `{ from, to }` clock texts; cleared, the span is absent (all day). While only one
 * end is picked the span is held here, not in the form, which takes whole spans only.
 */
export function TimeRange({
  value,
  onChange,
  id,
  ...rest
}: {
  value?: Span | null;
  onChange?: (value: Span | undefined) => void;
  id?: string;
  /** Names both ends: only the first is the one the form item's label points at. */
  'aria-label'?: string;
}) {
  const { t } = useTranslation();
  const [half, setHalf] = useState<Ends | null>(null);
  const picked = (range: (Dayjs | null)[] | null) => {
    const [from = null, to = null] = range ?? [];
    if (from && to) {
      setHalf(null);
      onChange?.({ from: from.format(FORMAT), to: to.format(FORMAT) });
    } else if (!from && !to) {
      setHalf(null);
      onChange?.(undefined);
    } else setHalf([from, to]);
  };
  return (
    <TimePicker.RangePicker
      {...rest}
      id={{ start: id }}
      format={FORMAT}
      minuteStep={5}
      needConfirm={false}
      allowClear
      allowEmpty={[true, true]}
      placeholder={[t('settings.f.from'), t('settings.f.to')]}
      value={half ?? (value ? [moment(value.from), moment(value.to)] : null)}
      onCalendarChange={picked}
      onChange={picked}
    />
  );
}
