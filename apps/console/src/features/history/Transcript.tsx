import type { Message, Note } from '@parley/protocol';
import { MessageList } from '../workbench/components/MessageList';
import '../workbench/workbench.css';
import './records.css';

const nothing = () => undefined;

/**
 * A past conversation's messages as the workbench shows them, read only: nothing is pending, nothing
 * can be withdrawn or resent, and the whole conversation is already here. Its internal notes (agents'
 * only) sit among the messages.
 */
export function Transcript({ id, messages, visitorName, notes }: { id: string; messages: Message[]; visitorName: string; notes?: Note[] }) {
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
        notes={notes}
      />
    </div>
  );
}
