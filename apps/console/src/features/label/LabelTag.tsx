import type { LabelRef } from '@parley/protocol';
import { Tag } from 'antd';
import type { ReactNode } from 'react';
import './label.css';

/** WCAG relative luminance of `#rrggbb`. */
function luminance(hex: string): number {
  const channel = (at: number) => {
    const value = Number.parseInt(hex.slice(at, at + 2), 16) / 255;
    return value <= 0.03928 ? value / 12.92 : ((value + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * channel(1) + 0.7152 * channel(3) + 0.0722 * channel(5);
}

/** White or near-black, whichever reads better on the label's colour: labels take any colour a team picks. */
export function textOn(background: string): string {
  const light = luminance(background);
  return 1.05 / (light + 0.05) >= (light + 0.05) / 0.05 ? '#ffffff' : '#1f1f1f';
}

/**
 * A label as people see it everywhere (list, workbench, history): a tag in the label's colour. The colour
 * is the list's own `#rrggbb`, drawn solid with the text that reads best on it.
 */
export function LabelTag({ label, closable, onClose }: { label: LabelRef; closable?: boolean; onClose?: () => void }): ReactNode {
  const text = textOn(label.color);
  return (
    <Tag
      style={{ background: label.color, borderColor: label.color, color: text }}
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
