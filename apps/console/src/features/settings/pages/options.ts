import type { FieldOption } from '../../shared/fields';

export const SIDES: FieldOption[] = [
  { value: 'right', label: 'settings.side.right' },
  { value: 'left', label: 'settings.side.left' },
];

export const CONTACT_FIELDS: FieldOption[] = ['name', 'phone', 'email'].map((value) => ({ value, label: `settings.contact.${value}` }));

export const WEEKDAYS: FieldOption[] = [0, 1, 2, 3, 4, 5, 6].map((value) => ({ value, label: `settings.weekday.${value}` }));

/** The weekdays as a week is read on the console's calendars: Monday first. */
export const WEEK: FieldOption[] = [1, 2, 3, 4, 5, 6, 0].map((value) => ({ value, label: `settings.weekday.${value}` }));
