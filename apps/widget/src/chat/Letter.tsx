import type { WidgetSettings } from '@parley/protocol';
import { useState } from 'preact/hooks';
import { Check, Mail } from './icons';
import { ApiError } from './lib/api';
import type { TextKey, Translate } from './lib/i18n';
import { type LetterErrors, type LetterField, type LetterValues, validateLetter } from './lib/validate';

interface Props {
  t: Translate;
  settings: WidgetSettings;
  hasHistory: boolean;
  onSubmit: (values: LetterValues) => Promise<void>;
  onHistory: () => void;
  /** Said above the form instead of the usual introduction (the off-hours text). */
  intro?: string;
  /** The pre-chat form asks only the contact fields, before the first message, and then steps aside. */
  preChat?: boolean;
}

const EMPTY: LetterValues = { name: '', phone: '', email: '', content: '' };
const PLACEHOLDER: Record<LetterField, TextKey> = {
  name: 'namePlaceholder',
  phone: 'phonePlaceholder',
  email: 'emailPlaceholder',
  content: 'contentPlaceholder',
};

/** Leave-a-message, offered when no agent is online; also the pre-chat form when that is enabled. */
export function LetterForm({ t, settings, hasHistory, onSubmit, onHistory, preChat = false, intro = '' }: Props) {
  const form: WidgetSettings['letter'] = preChat ? preChatForm(settings) : settings.letter;
  const [values, setValues] = useState<LetterValues>(EMPTY);
  const [errors, setErrors] = useState<LetterErrors>({});
  const [serverError, setServerError] = useState('');
  const [busy, setBusy] = useState(false);
  const [sent, setSent] = useState(false);

  if (sent) {
    return (
      <div class="letter done">
        <span class="big-ok">
          <Check size={30} />
        </span>
        <h2>{t('letterDone')}</h2>
        <p>{t('letterDoneText')}</p>
        <button
          type="button"
          class="secondary"
          onClick={() => {
            setValues(EMPTY);
            setSent(false);
          }}
        >
          {t('letterAgain')}
        </button>
        {hasHistory && (
          <button type="button" class="link" onClick={onHistory}>
            {t('viewHistory')}
          </button>
        )}
      </div>
    );
  }

  const update = (field: LetterField, value: string) => {
    setValues({ ...values, [field]: value });
    if (errors[field]) setErrors({ ...errors, [field]: undefined });
  };
  const submit = async (event: Event) => {
    event.preventDefault();
    const found = validateLetter(preChat ? { ...values, content: '-' } : values, form);
    setErrors(found);
    setServerError('');
    if (Object.values(found).some(Boolean)) return;
    setBusy(true);
    try {
      await onSubmit(values);
      if (!preChat) setSent(true);
    } catch (caught) {
      setServerError(caught instanceof ApiError && caught.status !== 0 && caught.message ? caught.message : t('networkError'));
    } finally {
      setBusy(false);
    }
  };
  const fields: LetterField[] = preChat ? form.fields : [...form.fields, 'content'];

  return (
    <form class="letter" onSubmit={submit} noValidate>
      <div class="letter-head">
        <span class="letter-icon">
          <Mail size={22} />
        </span>
        <div>
          <h2>{t(preChat ? 'preChatTitle' : 'letterTitle')}</h2>
          <p>{intro || t(preChat ? 'preChatIntro' : 'letterIntro')}</p>
        </div>
      </div>
      {fields.map((field) => {
        const required = field === 'content' || form.required.includes(field);
        const error = errors[field];
        const id = `letter-${field}`;
        const common = {
          id,
          class: `input${error ? ' invalid' : ''}`,
          value: values[field],
          placeholder: t(PLACEHOLDER[field]),
          'aria-invalid': error ? true : undefined,
          'aria-describedby': error ? `${id}-error` : undefined,
          onInput: (event: { currentTarget: HTMLInputElement | HTMLTextAreaElement }) => update(field, event.currentTarget.value),
        };
        return (
          <div class="field" key={field}>
            <label for={id}>
              {t(field)}
              {required && <span class="req"> *</span>}
            </label>
            {field === 'content' ? (
              <textarea rows={4} maxLength={2000} {...common} />
            ) : field === 'email' ? (
              <input type="email" autoComplete="email" {...common} />
            ) : field === 'phone' ? (
              <input type="tel" autoComplete="tel" {...common} />
            ) : (
              <input type="text" autoComplete="name" {...common} />
            )}
            {preChat && field === 'email' && settings.transcript && <div class="field-hint">{t('transcriptHint')}</div>}
            {error && (
              <div class="field-error" id={`${id}-error`}>
                {t(
                  error === 'invalid' && field === 'email'
                    ? 'invalidEmail'
                    : error === 'invalid' && field === 'phone'
                      ? 'invalidPhone'
                      : error,
                )}
              </div>
            )}
          </div>
        );
      })}
      {serverError && (
        <div class="form-error" role="alert">
          {serverError}
        </div>
      )}
      <button type="submit" class="primary" disabled={busy}>
        {busy ? t('submitting') : t(preChat ? 'preChatStart' : 'submit')}
      </button>
      {hasHistory && (
        <button type="button" class="link center" onClick={onHistory}>
          {t('viewHistory')}
        </button>
      )}
    </form>
  );
}

/** The pre-chat form's fields and which of them must be filled in. */
export function preChatForm(settings: WidgetSettings): WidgetSettings['letter'] {
  const { fields, required } = settings.preChat;
  return { fields, required: required.filter((field) => fields.includes(field)) };
}
