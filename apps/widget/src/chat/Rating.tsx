import { useEffect, useRef, useState } from 'preact/hooks';
import { Check, Star } from './icons';
import { ApiError } from './lib/api';
import type { Translate } from './lib/i18n';

interface Props {
  t: Translate;
  done: boolean;
  onRate: (score: number, comment: string) => Promise<void>;
}

/** The 1–5 rating asked for when a conversation ends. */
export function RatingCard({ t, done, onRate }: Props) {
  const [score, setScore] = useState(0);
  const [hover, setHover] = useState(0);
  const [comment, setComment] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState('');
  const labels = t('rateLabels').split('|');
  const card = useRef<HTMLDivElement>(null);
  // Choosing a score opens the comment box below the fold; bring it into view.
  useEffect(() => {
    if (score > 0) card.current?.scrollIntoView({ block: 'nearest' });
  }, [score > 0]);

  if (done) {
    return (
      <div class="card rate done">
        <span class="ok">
          <Check size={18} />
        </span>
        {t('rateThanks')}
      </div>
    );
  }
  const shown = hover || score;
  const submit = async () => {
    setBusy(true);
    setError('');
    try {
      await onRate(score, comment);
    } catch (caught) {
      setError(caught instanceof ApiError && caught.status !== 0 && caught.message ? caught.message : t('networkError'));
    } finally {
      setBusy(false);
    }
  };
  return (
    <div class="card rate" ref={card}>
      <div class="card-title">{t('rateTitle')}</div>
      <div class="card-hint">{t('rateHint')}</div>
      <div class="stars">
        {[1, 2, 3, 4, 5].map((value) => (
          <button
            type="button"
            key={value}
            aria-pressed={score === value}
            aria-label={`${t('stars', { n: value })} · ${labels[value - 1] ?? ''}`}
            class={value <= shown ? 'lit' : ''}
            onMouseEnter={() => setHover(value)}
            onMouseLeave={() => setHover(0)}
            onClick={() => setScore(value)}
          >
            <Star size={30} />
          </button>
        ))}
      </div>
      <div class="star-label">{shown > 0 ? labels[shown - 1] : '\u00a0'}</div>
      {score > 0 && (
        <>
          <textarea
            class="input"
            rows={2}
            maxLength={500}
            placeholder={t('rateComment')}
            value={comment}
            onInput={(event) => setComment(event.currentTarget.value)}
          />
          {error && <div class="form-error">{error}</div>}
          <button type="button" class="primary" disabled={busy} onClick={submit}>
            {t('rateSubmit')}
          </button>
        </>
      )}
    </div>
  );
}
