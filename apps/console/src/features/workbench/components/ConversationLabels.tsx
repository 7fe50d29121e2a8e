import { PlusOutlined } from '@ant-design/icons';
import type { ConversationLabels as Labelled, LabelRef } from '@parley/protocol';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Button, Checkbox, Empty, Input, Popover, Spin } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { toastError, toastSuccess } from '../../../lib/feedback';
import { LabelTag, LabelTags } from '../../label/LabelTag';
import { workbenchApi } from '../api';

const keys = {
  labelled: ['workbench', 'labels'] as const,
  options: ['label', 'options'] as const,
};

/**
 * The labels of every conversation this agent sees in the workbench, one request for the whole list.
 * Read again now and then: a supervisor or a colleague may label a conversation too.
 */
function useLabelled() {
  return useQuery({
    queryKey: keys.labelled,
    queryFn: () => workbenchApi.labels().then((data) => new Map(data.list.map((item) => [item.YQToken, item.labels]))),
    staleTime: 10_000,
    refetchInterval: 30_000,
  });
}

/** The team's label list, as the picker offers it (at most a page of 100: a list longer than that is not a label list). */
function useLabelOptions(enabled: boolean) {
  return useQuery({
    queryKey: keys.options,
    queryFn: () => workbenchApi.labelList().then((data) => data.list),
    staleTime: 30_000,
    enabled,
  });
}

/** A visitor's labels in the workbench list. */
export function VisitorLabels({ token }: { token: string }) {
  const labelled = useLabelled();
  const labels = labelled.data?.get(token);
  if (!labels || labels.length === 0) return null;
  return (
    <span className="wb-visitor-labels" data-testid="wb-visitor-labels">
      <LabelTags labels={labels} />
    </span>
  );
}

/**
 * The conversation header's labels: tags in their colours, and for the conversation's agent or a
 * supervisor a picker that adds and removes them (the server checks who may).
 */
export function ConversationLabels({ token, editable }: { token: string; editable: boolean }) {
  const { t } = useTranslation();
  const client = useQueryClient();
  const [open, setOpen] = useState(false);
  const [search, setSearch] = useState('');
  const labelled = useLabelled();
  const options = useLabelOptions(editable);
  const current: LabelRef[] = labelled.data?.get(token) ?? [];

  const save = useMutation({
    mutationFn: (labelIds: number[]) => workbenchApi.setLabels(token, labelIds),
    onSuccess: (answer: Labelled) => {
      client.setQueryData<Map<string, LabelRef[]>>(keys.labelled, (old) => new Map(old ?? []).set(answer.YQToken, answer.labels));
      void client.invalidateQueries({ queryKey: keys.options });
      toastSuccess(t('labels.saved'));
    },
    onError: (error: Error) => toastError(error.message),
  });
  const ids = current.map((label) => label.id);
  const toggle = (id: number, on: boolean) => save.mutate(on ? [...ids, id] : ids.filter((held) => held !== id));

  const needle = search.trim().toLowerCase();
  const shown = (options.data ?? []).filter((label) => !needle || label.name.toLowerCase().includes(needle));
  const picker = (
    <div className="wb-label-picker" data-testid="wb-label-picker">
      <Input.Search
        size="small"
        allowClear
        placeholder={t('labels.search')}
        value={search}
        onChange={(event) => setSearch(event.target.value)}
        aria-label={t('labels.search')}
      />
      {options.isLoading ? (
        <Spin size="small" />
      ) : shown.length === 0 ? (
        <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('labels.none')} />
      ) : (
        <ul className="wb-label-options">
          {shown.map((label) => (
            <li key={label.id}>
              <Checkbox
                checked={ids.includes(label.id)}
                disabled={save.isPending}
                onChange={(event) => toggle(label.id, event.target.checked)}
                data-testid="wb-label-option"
                data-label={label.name}
              >
                <LabelTag label={label} />
              </Checkbox>
            </li>
          ))}
        </ul>
      )}
    </div>
  );

  if (!editable && current.length === 0) return null;
  return (
    <div className="wb-conv-labels" data-testid="wb-conv-labels">
      {current.map((label) => (
        <LabelTag key={label.id} label={label} closable={editable} onClose={() => toggle(label.id, false)} />
      ))}
      {editable && (
        <Popover
          open={open}
          onOpenChange={(next) => {
            setOpen(next);
            if (next) void options.refetch();
          }}
          trigger="click"
          placement="bottomLeft"
          title={t('labels.pick')}
          content={picker}
        >
          <Button size="small" type="dashed" icon={<PlusOutlined />} data-testid="wb-labels-add" aria-label={t('labels.edit')}>
            {t('labels.add')}
          </Button>
        </Popover>
      )}
    </div>
  );
}
