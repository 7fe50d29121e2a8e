import { TimePicker } from 'antd';
import dayjs, { type Dayjs } from 'dayjs';
import { useTranslation } from 'react-i18next';

export interface Span {
  from: string;
  to: string;
}

const FORMAT = 'HH:mm';

function moment(clock: string): Dayjs {
  return dayjs(`2000-01-01T${clock}`);
}

/** A span of the day as `{ from, to }` clock texts; cleared, the span is absent (all day). */
export function TimeRange({
  value,
  onChange,
  id,
  ...rest
}: {
  value?: Span | null;
  onChange?: (value: Span | undefined) => void;
  id?: string;
}) {
  const { t } = useTranslation();
  return (
    <TimePicker.RangePicker
      {...rest}
      id={{ start: id }}
      format={FORMAT}
      minuteStep={5}
      needConfirm={false}
      allowClear
      placeholder={[t('settings.f.from'), t('settings.f.to')]}
      value={value ? [moment(value.from), moment(value.to)] : null}
      onChange={(range) => {
        const [from, to] = range ?? [];
        onChange?.(from && to ? { from: from.format(FORMAT), to: to.format(FORMAT) } : undefined);
      }}
    />
  );
}
