import LockOutlined from '@ant-design/icons/LockOutlined';
import MobileOutlined from '@ant-design/icons/MobileOutlined';
import SafetyCertificateOutlined from '@ant-design/icons/SafetyCertificateOutlined';
import UserOutlined from '@ant-design/icons/UserOutlined';
import { type FormEvent, type ReactNode, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, Navigate, useNavigate, useSearchParams } from 'react-router';
import { toastSuccess } from '../../lib/feedback';
import { useSession } from '../../stores/session';
import { AuthShell } from './AuthShell';
import { login, loginWithCode, sendCode, socialLogin } from './api';
import { PasswordField, SubmitButton, TextField } from './fields';
import { type FieldErrors, safeRedirect, validateAccount, validateMfaCode, validatePhone, validatePhoneLogin } from './validation';

const CODE_WAIT_SECONDS = 60;

/**
 * The login page stays light (it is the first thing every agent loads): plain forms with the seed's
 * messages, without antd, which the pages behind the login use.
 */
function Field({ error, children }: { error: FieldErrors<string>[string]; children: ReactNode }) {
  const { t } = useTranslation();
  return (
    <div className={`auth-field${error ? ' has-error' : ''}`}>
      {children}
      <div className="auth-field-error" role={error ? 'alert' : undefined}>
        {error ? t(error.key, error.values ?? {}) : ''}
      </div>
    </div>
  );
}

function AccountForm({ onToken, onTicket }: { onToken: (token: string) => void; onTicket: (ticket: string) => void }) {
  const { t } = useTranslation();
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [errors, setErrors] = useState<FieldErrors<'username' | 'password'>>({});
  const [busy, setBusy] = useState(false);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const found = validateAccount({ username, password });
    setErrors(found);
    if (Object.keys(found).length > 0) return;
    setBusy(true);
    try {
      const answer = await login(username.trim(), password);
      if ('ticket' in answer) onTicket(answer.ticket);
      else onToken(answer.token);
    } catch {
      // The HTTP client has shown the server's message.
    } finally {
      setBusy(false);
    }
  };

  return (
    <form onSubmit={submit} noValidate>
      <Field error={errors.username}>
        <TextField
          icon={<UserOutlined />}
          placeholder={t('auth.username')}
          aria-label={t('auth.username')}
          autoComplete="username"
          data-testid="login-username"
          invalid={Boolean(errors.username)}
          value={username}
          onChange={(event) => setUsername(event.target.value)}
        />
      </Field>
      <Field error={errors.password}>
        <PasswordField
          icon={<LockOutlined />}
          placeholder={t('auth.password')}
          aria-label={t('auth.password')}
          autoComplete="current-password"
          data-testid="login-password"
          invalid={Boolean(errors.password)}
          value={password}
          onChange={(event) => setPassword(event.target.value)}
        />
      </Field>
      <SubmitButton busy={busy} data-testid="login-submit">
        {t('auth.login')}
      </SubmitButton>
    </form>
  );
}

/**
 * The second step of a sign-in with two-factor sign-in on: the code the authenticator app shows, or one
 * of the recovery codes saved when it was turned on.
 */
function MfaForm({ ticket, onToken, onBack }: { ticket: string; onToken: (token: string) => void; onBack: () => void }) {
  const { t } = useTranslation();
  const [recovery, setRecovery] = useState(false);
  const [code, setCode] = useState('');
  const [errors, setErrors] = useState<FieldErrors<'code'>>({});
  const [busy, setBusy] = useState(false);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const found = validateMfaCode(code, recovery);
    setErrors(found);
    if (found.code) return;
    setBusy(true);
    try {
      onToken(await loginWithCode(ticket, code.trim()));
    } catch {
      // The HTTP client has shown the server's message; a spent ticket needs the password again.
      setCode('');
    } finally {
      setBusy(false);
    }
  };

  const label = t(recovery ? 'auth.recoveryCode' : 'auth.mfaCode');
  return (
    <form onSubmit={submit} noValidate data-testid="login-mfa">
      <h2 className="auth-title">{t('auth.mfaTitle')}</h2>
      <p className="auth-subtitle">{t(recovery ? 'auth.mfaRecoverySubtitle' : 'auth.mfaSubtitle')}</p>
      <Field error={errors.code}>
        <TextField
          key={recovery ? 'recovery' : 'totp'}
          icon={<SafetyCertificateOutlined />}
          placeholder={label}
          aria-label={label}
          maxLength={recovery ? 24 : 6}
          inputMode={recovery ? 'text' : 'numeric'}
          autoComplete="one-time-code"
          autoFocus
          data-testid="login-mfa-code"
          invalid={Boolean(errors.code)}
          value={code}
          onChange={(event) => setCode(recovery ? event.target.value : event.target.value.replace(/\D+/g, ''))}
        />
      </Field>
      <SubmitButton busy={busy} data-testid="login-mfa-submit">
        {t('auth.verify')}
      </SubmitButton>
      <div className="auth-links">
        <button
          type="button"
          className="auth-input-action auth-code-button"
          data-testid="login-mfa-switch"
          onClick={() => {
            setRecovery(!recovery);
            setCode('');
            setErrors({});
          }}
        >
          {t(recovery ? 'auth.useTotp' : 'auth.useRecovery')}
        </button>
        <button type="button" className="auth-input-action" onClick={onBack}>
          {t('auth.toLogin')}
        </button>
      </div>
    </form>
  );
}

function PhoneForm({ onToken }: { onToken: (token: string) => void }) {
  const { t } = useTranslation();
  const [phone, setPhone] = useState('');
  const [code, setCode] = useState('');
  const [errors, setErrors] = useState<FieldErrors<'phone' | 'code'>>({});
  const [wait, setWait] = useState(0);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    if (wait <= 0) return;
    const timer = setTimeout(() => setWait(wait - 1), 1000);
    return () => clearTimeout(timer);
  }, [wait]);

  const requestCode = async () => {
    const found = validatePhone(phone);
    setErrors(found);
    if (found.phone) return;
    try {
      await sendCode(phone.trim());
      toastSuccess(t('auth.codeSent'));
      setWait(CODE_WAIT_SECONDS);
    } catch {
      // The HTTP client has shown the server's message.
    }
  };

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const found = validatePhoneLogin({ phone, code });
    setErrors(found);
    if (Object.keys(found).length > 0) return;
    setBusy(true);
    try {
      onToken(await socialLogin(code.trim()));
    } catch {
      // The HTTP client has shown the server's message.
    } finally {
      setBusy(false);
    }
  };

  return (
    <form onSubmit={submit} noValidate>
      <Field error={errors.phone}>
        <TextField
          icon={<MobileOutlined />}
          placeholder={t('auth.phone')}
          aria-label={t('auth.phone')}
          maxLength={11}
          inputMode="numeric"
          autoComplete="tel"
          invalid={Boolean(errors.phone)}
          value={phone}
          onChange={(event) => setPhone(event.target.value)}
        />
      </Field>
      <Field error={errors.code}>
        <TextField
          icon={<SafetyCertificateOutlined />}
          placeholder={t('auth.code')}
          aria-label={t('auth.code')}
          maxLength={8}
          inputMode="numeric"
          autoComplete="one-time-code"
          invalid={Boolean(errors.code)}
          value={code}
          onChange={(event) => setCode(event.target.value)}
          suffix={
            <button type="button" className="auth-input-action auth-code-button" disabled={wait > 0} onClick={requestCode}>
              {wait > 0 ? t('auth.codeWait', { seconds: wait }) : t('auth.sendCode')}
            </button>
          }
        />
      </Field>
      <SubmitButton busy={busy}>{t('auth.login')}</SubmitButton>
    </form>
  );
}

export default function LoginPage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const token = useSession((state) => state.token);
  const setToken = useSession((state) => state.setToken);
  const redirect = safeRedirect(params.get('redirect'));
  const [signedIn, setSignedIn] = useState(false);
  const [mode, setMode] = useState<'account' | 'phone'>('account');
  const [ticket, setTicket] = useState<string>();

  if (token && !signedIn) return <Navigate to="/" replace />;

  const onToken = (value: string) => {
    setSignedIn(true);
    setToken(value);
    toastSuccess(t('auth.welcome'));
    navigate(redirect, { replace: true });
  };

  if (ticket) {
    return (
      <AuthShell>
        <MfaForm ticket={ticket} onToken={onToken} onBack={() => setTicket(undefined)} />
      </AuthShell>
    );
  }

  return (
    <AuthShell>
      <h2 className="auth-title">{t('auth.loginTitle')}</h2>
      <p className="auth-subtitle">{t('auth.loginSubtitle')}</p>
      <div className="auth-tabs" role="tablist">
        {(['account', 'phone'] as const).map((key) => (
          <button
            key={key}
            type="button"
            role="tab"
            aria-selected={mode === key}
            className={mode === key ? 'is-active' : ''}
            onClick={() => setMode(key)}
          >
            {t(key === 'account' ? 'auth.tabAccount' : 'auth.tabPhone')}
          </button>
        ))}
      </div>
      {mode === 'account' ? <AccountForm onToken={onToken} onTicket={setTicket} /> : <PhoneForm onToken={onToken} />}
      <div className="auth-links">
        <Link to="/register">{t('auth.toRegister')}</Link>
        <Link to="/authLogin">{t('auth.toSocial')}</Link>
      </div>
    </AuthShell>
  );
}
