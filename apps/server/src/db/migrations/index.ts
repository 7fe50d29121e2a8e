import type { Migration } from 'kysely';
import type { DialectName } from '../dialect.js';
import { foundation } from './001_foundation.js';
import { chat } from './002_chat.js';
import { uploads } from './003_uploads.js';
import { presence } from './004_presence.js';
import { visitorCredentials } from './005_visitor_credentials.js';
import { uploadQuotas } from './006_upload_quotas.js';
import { loginLimits } from './007_login_limits.js';
import { letterHandling } from './008_letter_handling.js';
import { visitorRecords } from './009_visitor_records.js';
import { friendlyAndLinks } from './010_friendly_and_links.js';
import { homeFigures } from './011_home_figures.js';
import { settings } from './012_settings.js';
import { personalAndRegions } from './013_personal_and_regions.js';
import { conversationTimers } from './014_conversation_timers.js';
import { robotAsks } from './015_robot_asks.js';
import { census } from './017_census.js';
import { robotSuggestions } from './018_robot_suggestions.js';
import { censusDays } from './019_census_days.js';
import { censusMonthValues } from './020_census_month_values.js';
import { regionAssignRules } from './021_region_assign_rules.js';
import { auditLog } from './022_audit_log.js';
import { accountSecurity } from './023_account_security.js';
import { transcriptMail } from './024_transcript_mail.js';
import { notes } from './025_notes.js';
import { conversationLabels } from './026_conversation_labels.js';
import { wechat } from './027_wechat.js';
import { apiTokens } from './028_api_tokens.js';
import { webhookSources } from './029_webhook_sources.js';
import { webhooks } from './029_webhooks.js';
import { push } from './030_push.js';
import { messageVia } from './031_message_via.js';
import { visitorIdentity } from './032_visitor_identity.js';
import { robotQuestions } from './033_robot_questions.js';
import { wechatWindow } from './034_wechat_window.js';
import { claims } from './035_claims.js';
import { webhookEvents } from './036_webhook_events.js';
import { search } from './037_search.js';
import { webhookPendingOrder } from './038_webhook_pending_order.js';
import { ratedConversations } from './039_rated_conversations.js';
import { messagesTold } from './040_messages_told.js';
import { messagesNewestByVisitor } from './041_messages_newest_by_visitor.js';
import { searchableVisitors } from './042_searchable_visitors.js';
import { messageSearchPendingMigration } from './043_message_search_pending.js';
import { uploadMarks } from './044_upload_marks.js';
import { visitorMessageRows } from './045_visitor_message_rows.js';

/** Every migration, in order; numbered and forward only. The same set serves SQLite and PostgreSQL. */
export function migrations(dialect: DialectName): Record<string, Migration> {
  return {
    '001_foundation': foundation(dialect),
    '002_chat': chat(dialect),
    '003_uploads': uploads(dialect),
    '004_presence': presence(),
    '005_visitor_credentials': visitorCredentials(),
    '006_upload_quotas': uploadQuotas(),
    '007_login_limits': loginLimits(),
    '008_letter_handling': letterHandling(),
    '009_visitor_records': visitorRecords(),
    '010_friendly_and_links': friendlyAndLinks(dialect),
    '011_home_figures': homeFigures(),
    '012_settings': settings(),
    '013_personal_and_regions': personalAndRegions(),
    '014_conversation_timers': conversationTimers(dialect),
    '015_robot_asks': robotAsks(dialect),
    '017_census': census(dialect),
    '018_robot_suggestions': robotSuggestions(),
    '019_census_days': censusDays(),
    '020_census_month_values': censusMonthValues(),
    '021_region_assign_rules': regionAssignRules(),
    '022_audit_log': auditLog(dialect),
    '023_account_security': accountSecurity(dialect),
    '024_transcript_mail': transcriptMail(dialect),
    '025_notes': notes(dialect),
    '026_conversation_labels': conversationLabels(dialect),
    '027_wechat': wechat(dialect),
    '028_api_tokens': apiTokens(dialect),
    '029_webhooks': webhooks(dialect),
    '029_webhooks_sources': webhookSources(),
    '030_push': push(dialect),
    '031_message_via': messageVia(),
    '032_visitor_identity': visitorIdentity(),
    '033_robot_questions': robotQuestions(dialect),
    '034_wechat_window': wechatWindow(),
    '035_claims': claims(),
    '036_webhook_events': webhookEvents(dialect),
    '037_search': search(dialect),
    '038_webhook_pending_order': webhookPendingOrder(),
    '039_rated_conversations': ratedConversations(),
    '040_messages_told': messagesTold(),
    '041_messages_newest_by_visitor': messagesNewestByVisitor(dialect),
    '042_searchable_visitors': searchableVisitors(dialect),
    '043_message_search_pending': messageSearchPendingMigration(dialect),
    '044_upload_marks': uploadMarks(),
    '045_visitor_message_rows': visitorMessageRows(dialect),
  };
}
