import { settingsDefaults } from '@parley/protocol';
import { renderToStaticMarkup } from 'react-dom/server';
import { beforeAll, describe, expect, it } from 'vitest';
import { changeLanguage, initI18n } from '../../../lib/i18n';
import { ChatWindowPreview, InvitationPreview } from './Previews';

const window = settingsDefaults.windowSetting;
const style = settingsDefaults.windowStyle;
const box = settingsDefaults.invitationBox.pc;

describe('settings previews of the default texts', () => {
  beforeAll(() => initI18n('en'));

  it('shows the stored Chinese defaults in English in an English console', async () => {
    await changeLanguage('en');
    const html = renderToStaticMarkup(<ChatWindowPreview style={style} window={window} />);
    expect(html).toContain('Chat with us');
    expect(html).toContain('Hello! How can we help you?');
    expect(html).not.toContain(style.title);
    expect(html).not.toContain(window.welcome);
    const invite = renderToStaticMarkup(<InvitationPreview box={box} device="pc" />);
    expect(invite).toContain('Hello, need help? Click to chat with us');
    expect(invite).toContain('Chat now');
    expect(invite).toContain('Later');
  });

  it('shows a text the site wrote as it wrote it', async () => {
    await changeLanguage('en');
    const html = renderToStaticMarkup(
      <ChatWindowPreview style={{ ...style, title: '售后服务' }} window={{ ...window, welcome: 'Hi there' }} />,
    );
    expect(html).toContain('售后服务');
    expect(html).toContain('Hi there');
  });

  it('shows the defaults as stored in a Chinese console', async () => {
    await changeLanguage('zh');
    const html = renderToStaticMarkup(<ChatWindowPreview style={style} window={window} />);
    expect(html).toContain(style.title);
    expect(html).toContain(window.welcome);
  });
});
