import { Button, Result } from 'antd';
import { Component, type ReactNode } from 'react';
import { i18n } from '../lib/i18n';
import { recordError } from './errorLog';

interface State {
  failed: boolean;
}

/** A page that throws while drawing is logged and replaced by a message; the frame around it stays. */
export class PageErrorBoundary extends Component<{ children: ReactNode }, State> {
  override state: State = { failed: false };

  static getDerivedStateFromError(): State {
    return { failed: true };
  }

  override componentDidCatch(error: unknown): void {
    recordError(error);
  }

  override render() {
    if (!this.state.failed) return this.props.children;
    return (
      <Result
        status="error"
        title={i18n.t('errors.pageCrashed')}
        extra={<Button onClick={() => this.setState({ failed: false })}>{i18n.t('common.retry')}</Button>}
      />
    );
  }
}
