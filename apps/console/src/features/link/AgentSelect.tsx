import { useQuery } from '@tanstack/react-query';
import { Select } from 'antd';
import { useTranslation } from 'react-i18next';
import { call } from '../../lib/api';

/** Every enabled agent, for a link's pinned agent: any agent may read this list. */
export function useAgentOptions() {
  const agents = useQuery({ queryKey: ['talk', 'agents'], queryFn: () => call('GET /api/talk/agents') });
  return {
    loading: agents.isLoading,
    options: (agents.data?.list ?? []).map((agent) => ({ value: agent.uuid, label: agent.nickname })),
    nickname: (uuid: string | null) => agents.data?.list.find((agent) => agent.uuid === uuid)?.nickname,
  };
}

/** The form control of a link's agent: cleared (`null`), the link's visitors are routed as any others. */
export function AgentSelect(props: { id?: string; value?: string | null; onChange?: (value: string | null) => void }) {
  const { t } = useTranslation();
  const agents = useAgentOptions();
  return (
    <Select
      id={props.id}
      value={props.value ?? null}
      onChange={(value) => props.onChange?.(value ?? null)}
      allowClear
      showSearch={{ optionFilterProp: 'label' }}
      loading={agents.loading}
      placeholder={t('link.anyAgent')}
      options={agents.options}
    />
  );
}
