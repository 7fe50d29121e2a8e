import { Button, Result, Spin } from 'antd';
import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { useSession } from '../../stores/session';
import { AuthShell } from './AuthShell';
import { socialLogin } from './api';
import { safeRedirect } from './validation';

/** The social provider returns here with ?code=; the server trades it for a token. */
export default function CallbackPage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const setToken = useSession((state) => state.setToken);
  const code = params.get('code') ?? '';
  const [error, setError] = useState(code ? '' : t('auth.callbackNoCode'));
  const started = useRef(false);

  useEffect(() => {
    if (!code || started.current) return;
    started.current = true;
    socialLogin(code)
      .then((token) => {
        setToken(token);
        navigate(safeRedirect(params.get('redirect')), { replace: true });
      })
      .catch((failure: Error) => setError(failure.message));
  }, [code, navigate, params, setToken]);

  return (
    <AuthShell>
      {error ? (
        <Result
          status="warning"
          title={t('auth.callbackFailed')}
          subTitle={error}
          extra={
            <Link to="/login">
              <Button type="primary">{t('auth.toLogin')}</Button>
            </Link>
          }
        />
      ) : (
        <div className="auth-callback">
          <Spin size="large" />
          <p>{t('auth.callbackWorking')}</p>
        </div>
      )}
    </AuthShell>
  );
}
