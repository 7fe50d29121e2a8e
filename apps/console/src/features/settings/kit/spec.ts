import type { SettingsOf, SettingsPage } from '@parley/protocol';
import type { ReactElement, ReactNode } from 'react';
import type { FieldOption } from '../../shared/fields';

/** How a setting is entered: the list kit's kinds, and those only settings need. */
export type SettingKind =
  | 'text'
  | 'textarea'
  | 'password'
  | 'number'
  | 'switch'
  | 'select'
  | 'multiple'
  | 'tags'
  | 'color'
  | 'time'
  | 'timeRange'
  | 'checkboxes'
  | 'group'
  | 'list';

export interface SettingField {
  /** The property, relative to the group or list item holding it. */
  name: string;
  /** An i18n key: the label, and the name the field's messages use. */
  label: string;
  kind?: SettingKind;
  options?: FieldOption[];
  /** An i18n key shown under the control. */
  hint?: string;
  /** A group's or a list item's own fields. */
  fields?: SettingField[];
  /** A list: what a new item starts as. */
  newItem?: Record<string, unknown>;
  /** A list of short items: each item's fields side by side rather than one under another. */
  inline?: boolean;
  /** A list: the i18n key of the add button. */
  addLabel?: string;
  /** A control of the page's own; the form hands it `value` and `onChange`. */
  input?: () => ReactElement;
  /**
   * Drawn only while this returns true for the values beside it: the page's, the group's or the list
   * item's (the smtp group while mail is on; a region rule's agent while the rule assigns).
   */
  visible?: (siblings: FormValues) => boolean;
}

/** The form's values: the page's shape, loosely held while being edited. */
export type FormValues = Record<string, unknown>;

export interface PageSpec<P extends SettingsPage> {
  page: P;
  /** The page's fields; with `devices` they repeat under `pc` and `mobile`, one tab each. */
  fields: SettingField[];
  devices?: boolean;
  /** An i18n key: what the page is for, shown above the form. */
  intro?: string;
  /** Where the stored shape and the form differ (a nullable group held as a switch and its fields). */
  toForm?: (value: SettingsOf<P>) => FormValues;
  fromForm?: (values: FormValues) => FormValues;
  /** A live picture of what the page shapes, from the last valid values; for pages with `devices`, per device. */
  preview?: (value: SettingsOf<P>, device: Device) => ReactNode;
}

export type Device = 'pc' | 'mobile';
