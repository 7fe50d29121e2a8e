import { Form } from 'antd';
import type { TFunction } from 'i18next';
import { useRef } from 'react';
import { useTranslation } from 'react-i18next';
import type { z } from 'zod';
import { toastError } from '../../../lib/feedback';
import type { Problem } from '../../shared/fields';
import type { FormValues } from './spec';
import { checkPage, type FieldPath, pathKey } from './validate';

/** A rule antd's fields and lists both take. */
export interface ProblemRule {
  validator: () => Promise<void>;
}

/** A field's rule: the problem the whole page's check finds at this field now, said with the field's label. */
export function problemRule(t: TFunction, label: string, problem: () => Problem | undefined): ProblemRule {
  return {
    validator: async () => {
      const found = problem();
      if (found) throw new Error(t(found.key, { label, ...found.values }));
    },
  };
}

interface Options<T, F> {
  schema: z.ZodType<T>;
  /** The values as loaded: what the preview shows until the form holds something better. */
  stored: T;
  /** Where the form's values and the schema's shape differ (a percentage held for a share). */
  fromForm?: (values: F) => unknown;
  /** Receives the page as the schema parsed it, once every field and the page as a whole passed. */
  onValid: (value: T) => void;
}

/**
 * A form checked as a whole by the protocol's schema, as the server will check it: each field's problem,
 * the last values the schema accepted (for a live preview while a field is half typed), and a submit that
 * hands on only a page that passed. The settings pages and the smart robot's page share it.
 */
export function useCheckedForm<T, F extends object = FormValues>({ schema, stored, fromForm, onValid }: Options<T, F>) {
  const { t } = useTranslation();
  const [form] = Form.useForm<F>();
  const values = () => form.getFieldsValue(true) as F;
  const pageOf = (formValues: F): unknown => (fromForm ? fromForm(formValues) : formValues);
  const problemAt = (path: FieldPath): Problem | undefined => checkPage(schema, pageOf(values())).problems.get(pathKey(path));
  const watched = Form.useWatch((formValues: F) => formValues, { form, preserve: true });
  const lastGood = useRef<T>(stored);
  if (watched) {
    const checked = checkPage(schema, pageOf(watched));
    if (checked.value) lastGood.current = checked.value;
  }
  const submit = async () => {
    try {
      await form.validateFields({ recursive: true });
    } catch {
      return;
    }
    const checked = checkPage(schema, pageOf(values()));
    if (!checked.value) {
      // A problem no drawn field shows (a rule over the whole page): say so rather than send it.
      toastError(t('settings.kit.invalid'));
      return;
    }
    onValid(checked.value);
  };
  return { form, values, problemAt, preview: lastGood.current, submit };
}
