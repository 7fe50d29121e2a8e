import { AgentSelect } from '../../link/AgentSelect';
import { SettingsForm } from '../kit/SettingsForm';
import type { FormValues, PageSpec } from '../kit/spec';
import { RegionPicker } from './RegionPicker';

/**
 * A cleared agent is held as null or '' by the form, and an agent picked before the rule stopped assigning
 * stays in the form while hidden: the page leaves either out.
 */
function regionFromForm(values: FormValues): FormValues {
  const rules = Array.isArray(values.rules) ? values.rules : [];
  return {
    ...values,
    rules: rules.map((rule: FormValues) => {
      const kept = { ...rule };
      if (kept.serviceID === null || kept.serviceID === '' || kept.action !== 'assign') delete kept.serviceID;
      return kept;
    }),
  };
}

const region: PageSpec<'region'> = {
  page: 'region',
  intro: 'settings.intro.region',
  fields: [
    {
      name: 'rules',
      label: 'settings.f.regionRules',
      kind: 'list',
      addLabel: 'settings.add.regionRule',
      newItem: { codes: [], action: 'tip', text: '' },
      fields: [
        { name: 'codes', label: 'settings.f.regionCodes', input: () => <RegionPicker />, hint: 'settings.hint.regionCodes' },
        {
          name: 'action',
          label: 'settings.f.regionAction',
          kind: 'select',
          options: ['block', 'assign', 'tip'].map((value) => ({ value, label: `settings.regionAction.${value}` })),
        },
        { name: 'serviceID', label: 'settings.f.agent', input: () => <AgentSelect />, visible: (rule) => rule.action === 'assign' },
        {
          name: 'text',
          label: 'settings.f.regionText',
          kind: 'textarea',
          hint: 'settings.hint.regionText',
          visible: (rule) => rule.action !== 'assign',
        },
      ],
    },
  ],
  fromForm: regionFromForm,
};

const quickReply: PageSpec<'quickReply'> = {
  page: 'quickReply',
  intro: 'settings.intro.quickReply',
  fields: [
    {
      name: 'groups',
      label: 'settings.f.replyGroups',
      kind: 'list',
      addLabel: 'settings.add.replyGroup',
      newItem: { name: '', items: [] },
      fields: [
        { name: 'name', label: 'settings.f.groupName' },
        {
          name: 'items',
          label: 'settings.f.replies',
          kind: 'list',
          addLabel: 'settings.add.reply',
          newItem: { title: '', content: '' },
          fields: [
            { name: 'title', label: 'settings.f.title' },
            { name: 'content', label: 'settings.f.content', kind: 'textarea' },
          ],
        },
      ],
    },
  ],
};

const timedText = (name: string) => ({
  name,
  label: `settings.f.${name}`,
  kind: 'group' as const,
  fields: [
    { name: 'minutes', label: 'settings.f.minutes', kind: 'number' as const, hint: 'settings.hint.zeroNever' },
    { name: 'text', label: 'settings.f.text', kind: 'textarea' as const },
  ],
});

const autoAnswer: PageSpec<'autoAnswer'> = {
  page: 'autoAnswer',
  intro: 'settings.intro.autoAnswer',
  fields: [
    { name: 'greeting', label: 'settings.f.greeting', kind: 'textarea' },
    { name: 'queued', label: 'settings.f.queued', kind: 'textarea', hint: 'settings.hint.queued' },
    { name: 'noAgent', label: 'settings.f.noAgent', kind: 'textarea' },
    timedText('idle'),
    timedText('agentSilent'),
    {
      name: 'keywords',
      label: 'settings.f.keywordReplies',
      kind: 'list',
      addLabel: 'settings.add.keywordReply',
      newItem: { words: [], reply: '' },
      fields: [
        { name: 'words', label: 'settings.f.words', kind: 'tags' },
        { name: 'reply', label: 'settings.f.reply', kind: 'textarea' },
      ],
    },
  ],
};

export function RegionPage() {
  return <SettingsForm spec={region} />;
}

export function QuickReplyPage() {
  return <SettingsForm spec={quickReply} />;
}

export function AutoAnswerPage() {
  return <SettingsForm spec={autoAnswer} />;
}
