import type { LabelRef } from '@parley/protocol';
import { Tag } from 'antd';
import type { ReactNode } from 'react';
import './label.css';

/**
 * A label as people see it everywhere (list, workbench, history): a tag in the label's colour. The colour
 * is the list's own `#rrggbb`, so antd draws it as a solid tag with white text.
 */
export function LabelTag({ label, closable, onClose }: { label: LabelRef; closable?: boolean; onClose?: () => void }): ReactNode {
  return (
    <Tag
      color={label.color}
      closable={closable}
      onClose={(event) => {
        event.preventDefault();
        onClose?.();
      }}
      className="label-tag"
      data-testid="label-tag"
      data-label={label.name}
    >
      {label.name}
    </Tag>
  );
}

/** A conversation's labels in a row, or nothing. */
export function LabelTags({ labels }: { labels: readonly LabelRef[] | undefined }): ReactNode {
  if (!labels || labels.length === 0) return null;
  return (
    <span className="label-tags">
      {labels.map((label) => (
        <LabelTag key={label.id} label={label} />
      ))}
    </span>
  );
}
