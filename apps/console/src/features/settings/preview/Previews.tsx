import { MessageFilled } from '@ant-design/icons';
import { localized, type SettingsOf } from '@parley/protocol';
import { inkOn } from '@parley/protocol/contrast';
import type { CSSProperties } from 'react';
import { useTranslation } from 'react-i18next';
import { currentLanguage } from '../../../lib/format';
import type { Device } from '../kit/spec';
import './preview.css';

/** A preview draws the distances a site sets at a smaller scale, so that they fit the mock screen. */
const SCALE = 0.5;

function Screen({ device, children }: { device: Device; children: React.ReactNode }) {
  return <div className={device === 'mobile' ? 'mock-screen phone' : 'mock-screen'}>{children}</div>;
}

/**
 * A configured text as the preview shows it. The stored defaults are Chinese and the widget gives an
 * English visitor English for a text still at its default (the protocol's `localized`); the preview does
 * the same in the console's language, so an English console does not show Chinese it never typed. Only the
 * picture changes: the form and what is stored keep the value as it is.
 */
function shown(value: string): string {
  return localized(value, currentLanguage());
}

/** The launcher at its side and offsets: a round bubble, a bar with its text, or the site's image. */
export function LauncherPreview({ launcher, device }: { launcher: SettingsOf<'takeIcon'>['pc']; device: Device }) {
  const { t } = useTranslation();
  const place: CSSProperties = {
    bottom: launcher.bottom * SCALE,
    [launcher.position === 'left' ? 'left' : 'right']: launcher.side * SCALE,
  };
  if (!launcher.show) {
    return (
      <Screen device={device}>
        <p className="muted" style={{ padding: 12 }}>
          {t('settings.preview.hidden')}
        </p>
      </Screen>
    );
  }
  const text = shown(launcher.text) || t('settings.preview.launcherText');
  return (
    <Screen device={device}>
      {launcher.style === 'image' && launcher.image ? (
        <div className="mock-launcher image" style={place} data-testid="preview-launcher">
          <img className="mock-launcher-image" src={launcher.image} alt={text} />
        </div>
      ) : (
        <div
          className={`mock-launcher ${launcher.style === 'bar' ? 'bar' : 'bubble'}`}
          style={{ ...place, background: launcher.color }}
          data-testid="preview-launcher"
          title={text}
        >
          {launcher.style === 'bar' ? text : <MessageFilled aria-hidden />}
        </div>
      )}
    </Screen>
  );
}

const NAV_TEXT: Record<SettingsOf<'floatNavigation'>['items'][number]['type'], string> = {
  chat: 'settings.navType.chat',
  phone: 'settings.navType.phone',
  qq: 'settings.navType.qq',
  wechat: 'settings.navType.wechat',
  link: 'settings.navType.link',
  top: 'settings.navType.top',
};

export function FloatNavigationPreview({ value }: { value: SettingsOf<'floatNavigation'> }) {
  const { t } = useTranslation();
  const place: CSSProperties = { top: `${value.top}%`, [value.side]: 0, background: value.color };
  return (
    <Screen device="pc">
      {!value.enabled && (
        <p className="muted" style={{ padding: 12 }}>
          {t('settings.preview.disabled')}
        </p>
      )}
      <div className="mock-nav" style={{ ...place, opacity: value.enabled ? 1 : 0.4 }} data-testid="preview-nav">
        {value.items.map((item, index) => (
          // Items have no identity of their own: their place in the list is what the visitor sees.
          // biome-ignore lint/suspicious/noArrayIndexKey: see above
          <span key={index}>{item.title || t(NAV_TEXT[item.type])}</span>
        ))}
        {value.items.length === 0 && <span>{t('settings.preview.noItems')}</span>}
      </div>
    </Screen>
  );
}

export function InvitationPreview({ box, device }: { box: SettingsOf<'invitationBox'>['pc']; device: Device }) {
  const { t } = useTranslation();
  return (
    <Screen device={device}>
      <div className={`mock-invite${box.enabled ? '' : ' off'}`} data-testid="preview-invitation">
        {box.image && <img className="mock-invite-image" src={box.image} alt="" />}
        <div>{shown(box.text)}</div>
        <div className="mock-invite-buttons">
          <span className="mock-invite-accept">{shown(box.acceptText)}</span>
          <span>{shown(box.laterText)}</span>
        </div>
        {!box.enabled && <div className="muted">{t('settings.preview.disabled')}</div>}
        {(box.days || box.hours) && (
          <div className="muted" data-testid="preview-invitation-when">
            {inviteWhen(box, t)}
          </div>
        )}
      </div>
    </Screen>
  );
}

/** When the box may appear, in the reader's words: the chosen weekdays (Monday first) and hours. */
function inviteWhen(box: SettingsOf<'invitationBox'>['pc'], t: (key: string, values?: Record<string, unknown>) => string): string {
  const days = box.days
    ? [1, 2, 3, 4, 5, 6, 0].filter((day) => box.days?.includes(day)).map((day) => t(`settings.weekdayShort.${day}`))
    : [];
  const hours = box.hours ? `${box.hours.from}–${box.hours.to}` : '';
  return t('settings.preview.inviteWhen', {
    days: days.join(t('settings.preview.listSeparator')) || t('settings.preview.everyDay'),
    hours: hours || t('settings.preview.allDay'),
  });
}

/** The chat window as a visitor first sees it: header, intro, welcome, and the pre-chat form when asked for. */
export function ChatWindowPreview({
  style,
  window,
}: {
  style: Pick<SettingsOf<'windowStyle'>, 'color' | 'title' | 'logo' | 'intro'>;
  window?: Pick<SettingsOf<'windowSetting'>, 'welcome' | 'preChat'>;
}) {
  const { t } = useTranslation();
  return (
    <div className="mock-window" style={{ maxWidth: 340 }} data-testid="preview-window">
      <div className="mock-window-head" style={{ background: inkOn(style.color) }}>
        {style.logo && <img className="mock-window-logo" src={style.logo} alt="" />}
        <span>{shown(style.title)}</span>
      </div>
      {style.intro && <div className="mock-window-intro">{shown(style.intro)}</div>}
      <div className="mock-window-body">
        {window?.preChat.enabled && window.preChat.fields.length > 0 && (
          <div className="mock-prechat">
            {window.preChat.fields.map((field) => (
              <span key={field}>
                {t(`settings.contact.${field}`)}
                {window.preChat.required.includes(field) ? ' *' : ''}
              </span>
            ))}
          </div>
        )}
        {window?.welcome && (
          <div className="mock-bubble" data-testid="preview-welcome">
            {shown(window.welcome)}
          </div>
        )}
        <div className="mock-bubble mine" style={{ background: inkOn(style.color) }}>
          {t('settings.preview.visitorSays')}
        </div>
      </div>
      <div className="mock-window-input">{t('settings.preview.inputPlaceholder')}</div>
    </div>
  );
}
