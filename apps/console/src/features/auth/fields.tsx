import EyeInvisibleOutlined from '@ant-design/icons/EyeInvisibleOutlined';
import EyeOutlined from '@ant-design/icons/EyeOutlined';
import { type ButtonHTMLAttributes, type InputHTMLAttributes, type ReactNode, useState } from 'react';
import { useTranslation } from 'react-i18next';

/*
 * The login page's controls: plain elements styled like antd's large inputs and primary button. The
 * login page is the first thing every agent loads, and antd's run-time styling would cost it a second
 * of main-thread time on a mid-range phone; the pages behind the login use antd itself.
 */

interface TextFieldProps extends InputHTMLAttributes<HTMLInputElement> {
  icon: ReactNode;
  invalid?: boolean;
  suffix?: ReactNode;
}

export function TextField({ icon, invalid = false, suffix, ...input }: TextFieldProps) {
  return (
    <span className={`auth-input${invalid ? ' is-invalid' : ''}`}>
      <span className="auth-input-icon" aria-hidden="true">
        {icon}
      </span>
      <input type="text" {...input} aria-invalid={invalid || undefined} />
      {suffix}
    </span>
  );
}

export function PasswordField(props: Omit<TextFieldProps, 'type' | 'suffix'>) {
  const { t } = useTranslation();
  const [shown, setShown] = useState(false);
  return (
    <TextField
      {...props}
      type={shown ? 'text' : 'password'}
      suffix={
        <button
          type="button"
          className="auth-input-action"
          aria-label={t(shown ? 'auth.hidePassword' : 'auth.showPassword')}
          aria-pressed={shown}
          onClick={() => setShown(!shown)}
        >
          {shown ? <EyeOutlined /> : <EyeInvisibleOutlined />}
        </button>
      }
    />
  );
}

export function SubmitButton({ busy, children, ...button }: ButtonHTMLAttributes<HTMLButtonElement> & { busy: boolean }) {
  return (
    <button type="submit" className="auth-submit" disabled={busy} aria-busy={busy} {...button}>
      {busy && <span className="auth-spinner" aria-hidden="true" />}
      {children}
    </button>
  );
}
