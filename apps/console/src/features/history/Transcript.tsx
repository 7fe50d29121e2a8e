import type { Message } from '@parley/protocol';
import { MessageList } from '../workbench/components/MessageList';
import '../workbench/workbench.css';
import './records.css';

const nothing = () => undefined;

/**
 * A past conversation's messages as the workbench shows them, read only: nothing is pending, nothing
 * can be withdrawn or resent, and the whole conversation is already here.
 */
export function Transcript({ id, messages, visitorName }: { id: string; messages: Message[]; visitorName: string }) {
  return (
    <div className="records-transcript" data-testid="transcript">
      <MessageList
        token={id}
        conversation={{ messages, loaded: true, hasMore: false }}
        me=""
        visitorName={visitorName}
        typing=""
        onLoadOlder={async () => undefined}
        onWithdraw={nothing}
        onRetry={nothing}
      />
    </div>
  );
}
