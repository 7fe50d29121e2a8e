export type Lang = 'zh' | 'en';

/** Reads the first language the client accepts among ours; Chinese is the default. */
export function pickLang(acceptLanguage: string | undefined): Lang {
  if (!acceptLanguage) return 'zh';
  for (const part of acceptLanguage.split(',')) {
    const tag = part.split(';')[0]?.trim().toLowerCase() ?? '';
    if (tag.startsWith('en')) return 'en';
    if (tag.startsWith('zh')) return 'zh';
  }
  return 'zh';
}

const messages = {
  success: { zh: '成功', en: 'success' },
  notFound: { zh: '请求的资源不存在', en: 'Not found' },
  routeNotFound: { zh: '接口不存在：{path}', en: 'No such endpoint: {path}' },
  serverError: { zh: '服务器内部错误，请稍后重试', en: 'Internal server error, please try again later' },
  tooLarge: { zh: '请求体过大', en: 'Request body too large' },
  badJson: { zh: '请求体不是有效的 JSON', en: 'Request body is not valid JSON' },
  unsupportedType: { zh: '不支持的内容类型', en: 'Unsupported content type' },
  methodNotAllowed: { zh: '此接口不支持该请求方法', en: 'This endpoint does not take this method' },
  headersTooLarge: { zh: '请求头过大', en: 'Request headers too large' },
  requestTimeout: { zh: '请求超时', en: 'Request timed out' },
  malformedRequest: { zh: '请求格式不正确', en: 'Malformed request' },
  invalidField: { zh: '字段 {field} 无效：{reason}', en: 'Invalid field {field}: {reason}' },
  notLoggedIn: { zh: '未登录或登录已失效', en: 'Not logged in' },
  tokenInvalid: { zh: '令牌无效，请重新登录', en: 'Invalid token, please log in again' },
  tokenExpired: { zh: '令牌已过期', en: 'Token expired' },
  refreshExpired: { zh: '登录已过期，请重新登录', en: 'Login expired, please log in again' },
  badCredentials: { zh: '账号或密码不正确', en: 'Wrong username or password' },
  accountDisabled: { zh: '账号已被禁用或尚未启用', en: 'This account is disabled or not yet enabled' },
  rateLimited: {
    zh: '登录失败次数过多，请 {minutes} 分钟后再试',
    en: 'Too many failed logins, try again in {minutes} minutes',
  },
  forbidden: { zh: '没有权限执行此操作', en: 'You do not have permission to do this' },
  apiTokenNotHere: {
    zh: 'API 令牌不能调用此接口，请登录后操作',
    en: 'An API token cannot make this call; sign in to do it',
  },
  apiTokenExpired: { zh: 'API 令牌已过期', en: 'This API token has expired' },
  grantNotHeld: {
    zh: '只能授予自己拥有的权限；只有管理员可以授予管理员角色',
    en: 'You can grant only permissions you hold; only an administrator can grant Admin',
  },
  tooManyTokens: { zh: '每位客服最多 {max} 个有效的 API 令牌', en: 'Each agent may hold at most {max} live API tokens' },
  modelKeyNeedsAdmin: {
    zh: '只有管理员可以把已保存的模型密钥用于新的地址；请同时填写新的密钥，或留空密钥后再保存',
    en: 'Only an administrator may point the stored model key at a new address; give a new key, or save the address without one',
  },
  outboundRefused: {
    zh: '字段 {field} 的地址不可访问：只允许公网的 http(s) 地址（本机、内网和链路本地地址需在 OUTBOUND_ALLOW 中列出）',
    en: 'Field {field} points where the server may not go: only public http(s) addresses (loopback, private and link-local ones must be listed in OUTBOUND_ALLOW)',
  },
  badEncryptedPayload: { zh: '加密数据无法解密', en: 'The encrypted payload could not be decrypted' },
  usernameTaken: { zh: '用户名已存在', en: 'This username is already taken' },
  roleNameTaken: { zh: '角色名已存在', en: 'A role with this name already exists' },
  passwordRequired: { zh: '新建客服时必须设置密码', en: 'A password is required for a new agent' },
  roleMissing: { zh: '角色不存在', en: 'No such role' },
  agentMissing: { zh: '客服不存在', en: 'No such agent' },
  cannotDeleteSelf: { zh: '不能删除自己的账号', en: 'You cannot delete your own account' },
  cannotDisableSelf: { zh: '不能禁用自己的账号', en: 'You cannot disable your own account' },
  lastAdmin: { zh: '至少需要保留一个启用的管理员', en: 'At least one enabled administrator must remain' },
  builtinRole: { zh: '内置角色不能删除或改名', en: 'A built-in role cannot be deleted or renamed' },
  roleInUse: { zh: '仍有客服使用该角色，无法删除', en: 'This role is still assigned to agents' },
  smsNotConfigured: { zh: '短信验证码登录尚未配置', en: 'SMS code login is not configured' },
  socialNotConfigured: { zh: '第三方登录尚未配置', en: 'Social login is not configured' },
  noticeRegistrations: { zh: '{count} 个注册账号等待启用', en: 'Registered accounts waiting to be enabled: {count}' },
  noticeLetters: { zh: '{count} 条未读留言', en: 'Unread leave-messages: {count}' },
  noticeLettersTitle: { zh: '访客留言', en: 'Leave-messages' },
  noticeRegistrationsTitle: { zh: '待审核账号', en: 'Accounts to approve' },
  noticePasswordChangedTitle: { zh: '密码已修改', en: 'Password changed' },
  noticePasswordChanged: {
    zh: '你的账号密码已从 {ip} 修改，所有会话已退出。如非本人操作，请立即联系管理员。',
    en: 'The password of your account was changed from {ip} and every session was signed out. If this was not you, tell an administrator at once.',
  },
  noticePasswordResetTitle: { zh: '管理员已重设密码', en: 'Password set by an administrator' },
  noticePasswordReset: {
    zh: '管理员 {actor} 为你的账号设置了新密码，所有会话已退出。如非你本人要求，请告知其他管理员。',
    en: 'The administrator {actor} set a new password for your account and every session was signed out. If you did not ask for it, tell another administrator.',
  },
  noticeMfaEnabledTitle: { zh: '两步验证已开启', en: 'Two-factor sign-in turned on' },
  noticeMfaEnabled: {
    zh: '你的账号已从 {ip} 开启两步验证。如非本人操作，请立即联系管理员。',
    en: 'Two-factor sign-in was turned on for your account from {ip}. If this was not you, tell an administrator at once.',
  },
  noticeMfaDisabledTitle: { zh: '两步验证已关闭', en: 'Two-factor sign-in turned off' },
  noticeMfaDisabled: {
    zh: '你的账号已从 {ip} 关闭两步验证。如非本人操作，请立即修改密码并联系管理员。',
    en: 'Two-factor sign-in was turned off for your account from {ip}. If this was not you, change your password and tell an administrator at once.',
  },
  noticeAccountDelayedTitle: { zh: '账号登录失败过多', en: 'Many failed sign-ins' },
  noticeWebhookDisabledTitle: { zh: 'Webhook 已停用', en: 'A webhook was disabled' },
  noticeWebhookDisabled: {
    zh: '发往 {url} 的 Webhook 连续 {failures} 次投递失败，已自动停用。请检查接收方后在集成页面重新启用。',
    en: 'The webhook to {url} failed {failures} deliveries in a row and was disabled. Check the receiver, then enable it again on the integration page.',
  },
  webhookNotFound: { zh: 'Webhook 不存在', en: 'No such webhook' },
  webhookDeliveryNotFound: { zh: '投递记录不存在', en: 'No such delivery' },
  tooManyWebhooks: { zh: 'Webhook 最多 {max} 个', en: 'At most {max} webhooks' },
  noticeMentionedTitle: { zh: '有人在备注中提到了你', en: 'You were mentioned in a note' },
  noticeMentioned: {
    zh: '{name} 在与 {visitor} 的对话备注中提到了你',
    en: '{name} mentioned you in a note on the conversation with {visitor}',
  },
  noticeAccountDelayed: {
    zh: '账号 {username} 在 {minutes} 分钟内从 {addresses} 个地址登录失败 {failures} 次；此后对该账号的每次尝试都需等待。',
    en: 'The account {username} had {failures} failed sign-ins from {addresses} addresses within {minutes} minutes; every further attempt for it now waits.',
  },
  accountDelayed: {
    zh: '该账号登录失败次数过多，请 {seconds} 秒后再试',
    en: 'Too many failed sign-ins for this account, try again in {seconds} seconds',
  },
  passwordGuessesLimited: {
    zh: '当前密码输错次数过多，请 {minutes} 分钟后再试',
    en: 'The current password was wrong too many times, try again in {minutes} minutes',
  },
  mfaTicketInvalid: { zh: '验证步骤已过期，请重新登录', en: 'This sign-in step has expired, please sign in again' },
  mfaCodeWrong: { zh: '验证码不正确', en: 'Wrong verification code' },
  mfaAlreadyEnabled: {
    zh: '两步验证已开启，请先关闭再重新设置',
    en: 'Two-factor sign-in is already on; turn it off before setting it up again',
  },
  mfaNotEnabled: { zh: '两步验证未开启', en: 'Two-factor sign-in is not on' },
  mfaNotSetUp: { zh: '请先生成密钥并扫描二维码', en: 'Start the set-up and scan the QR code first' },
  mfaSetupRequired: {
    zh: '管理员须先开启两步验证才能继续',
    en: 'Administrators must turn on two-factor sign-in before anything else',
  },
  sessionMissing: { zh: '会话不存在或已结束', en: 'No such session, or it has ended' },
  regionBlocked: { zh: '抱歉，您所在的地区暂不提供在线咨询服务', en: 'Sorry, online chat is not available in your region' },
  visitorUploadsOff: { zh: '此站点未开放访客上传文件', en: 'Visitors may not upload files on this site' },
  originNotAllowed: { zh: '此网站未获准嵌入在线客服', en: 'This website is not allowed to embed the chat' },
  visitorUnknown: { zh: '访客身份无效，请刷新页面', en: 'Unknown visitor, please reload the page' },
  conversationTaken: { zh: '该对话已被其他客服接入', en: 'Another agent already has this conversation' },
  notYourConversation: { zh: '这不是你的对话', en: 'This conversation is not yours' },
  onlyIdTaken: { zh: '该消息编号已被他人使用', en: 'This message id was already used by someone else' },
  conversationClosed: { zh: '该对话未在进行中', en: 'This conversation is not open' },
  messageMissing: { zh: '消息不存在', en: 'No such message' },
  withdrawNotSender: { zh: '只能撤回自己发送的消息', en: 'You can only withdraw your own messages' },
  withdrawTooLate: { zh: '消息发送超过 2 分钟，无法撤回', en: 'Messages can only be withdrawn within 2 minutes' },
  withdrawWeChat: { zh: '发往微信的消息无法撤回', en: 'A message sent to WeChat cannot be withdrawn' },
  transferTarget: { zh: '无法转接给该客服', en: 'The conversation cannot be transferred to this agent' },
  agentFull: {
    zh: '该客服的对话数已达上限，无法转接',
    en: 'This agent already has as many conversations as they may hold; the conversation cannot be transferred',
  },
  agentNotConnected: {
    zh: '该客服当前未打开工作台，无法转接',
    en: 'This agent has no workbench open right now; the conversation cannot be transferred',
  },
  nothingToRate: { zh: '还没有可评价的对话', en: 'There is no conversation to rate yet' },
  noConversationToNote: { zh: '该访客还没有可添加备注的对话', en: 'This visitor has no conversation to add a note to yet' },
  supervisorOnly: { zh: '只有主管可以监控对话', en: 'Only supervisors can monitor conversations' },
  uploadMissing: { zh: '请选择要上传的文件', en: 'Choose a file to upload' },
  uploadType: { zh: '不支持该文件类型', en: 'This type of file is not accepted' },
  uploadTooLarge: { zh: '文件过大，最大 {mb} MB', en: 'The file is too large; the limit is {mb} MB' },
  notGrantable: {
    zh: '只能授予自己拥有的权限，且不能管理管理员账号',
    en: 'You can only grant permissions you hold yourself, and cannot manage administrator accounts',
  },
  uploadVisitorQuota: {
    zh: '今天上传的文件已达上限（每位访客每天 {mb} MB），请明天再试',
    en: 'Upload limit reached ({mb} MB per visitor per day); try again tomorrow',
  },
  uploadAddressQuota: {
    zh: '今天从此网络地址上传的文件已达上限（每个地址每天 {mb} MB），请明天再试',
    en: 'Upload limit reached ({mb} MB per address per day); try again tomorrow',
  },
  uploadStorageFull: {
    zh: '文件存储空间已满（上限 {mb} MB），请稍后再试',
    en: 'File storage is full (limit {mb} MB); try again later',
  },
  uploadDiskLow: {
    zh: '服务器磁盘剩余空间不足 {mb} MB，暂时无法上传',
    en: 'The server has less than {mb} MB of disk space left; uploads are paused',
  },
  friendlyMissing: { zh: '联系人不存在', en: 'No such contact' },
  linkMissing: { zh: '链接不存在', en: 'No such link' },
  labelMissing: { zh: '标签不存在', en: 'No such label' },
  linkKeyTaken: { zh: '该链接标识已被其他链接使用', en: 'This link key is already used by another link' },
  linkAgentMissing: { zh: '字段 serviceID 无效：客服不存在', en: 'Invalid field serviceID: no such agent' },
  slowDown: { zh: '发送太频繁，请稍后再试', en: 'Too many requests, please slow down' },
  databaseUnavailable: {
    zh: '数据库暂时不可用，请稍后重试',
    en: 'The database is unavailable for the moment, please try again shortly',
  },
  robotAskMissing: { zh: '问答不存在', en: 'No such question-answer pair' },
  robotImportMissing: { zh: '请选择要导入的 CSV 文件', en: 'Choose a CSV file to import' },
  robotImportHeader: {
    zh: 'CSV 第一行必须是表头，且包含 question 和 answer 两列',
    en: 'The first line of the CSV must be a header with the columns question and answer',
  },
  robotImportMalformed: { zh: 'CSV 第 {line} 行格式错误：{reason}', en: 'The CSV is malformed at line {line}: {reason}' },
  robotImportEnabled: { zh: '字段 enabled 无效：必须是 true 或 false', en: 'Invalid field enabled: must be true or false' },
  robotImportBusy: {
    zh: '另一个知识库导入正在进行，请等它完成后再试',
    en: 'Another knowledge-base import is running; try again once it has finished',
  },
  exportRange: {
    zh: '字段 {field} 无效：一次导出最多 {days} 天，请缩小日期范围',
    en: 'Invalid field {field}: one export covers at most {days} days; narrow the dates',
  },
  exportBusy: {
    zh: '同时进行的导出过多（每人最多 {perAgent} 个，服务器最多 {perProcess} 个），请等当前的导出完成后再试',
    en: 'Too many exports at once (at most {perAgent} per person and {perProcess} on the server); try again once one has finished',
  },
  robotUnknownReply: {
    zh: '抱歉，我还不太明白您的问题。您可以换个说法，或点击“转人工”与客服交谈。',
    en: 'Sorry, I did not quite understand. Try other words, or choose "Talk to a person".',
  },
  // history export (CSV header)
  csvConversation: { zh: '对话编号', en: 'Conversation' },
  csvVisitor: { zh: '访客', en: 'Visitor' },
  csvVisitorId: { zh: '访客编号', en: 'Visitor id' },
  csvChannel: { zh: '渠道', en: 'Channel' },
  csvAgent: { zh: '客服', en: 'Agent' },
  csvStarted: { zh: '开始时间', en: 'Started' },
  csvEnded: { zh: '结束时间', en: 'Ended' },
  csvDuration: { zh: '时长（秒）', en: 'Duration (s)' },
  csvMessages: { zh: '消息数', en: 'Messages' },
  csvFirstResponse: { zh: '首次响应（秒）', en: 'First response (s)' },
  csvScore: { zh: '评分', en: 'Rating' },
  csvComment: { zh: '评价内容', en: 'Comment' },
  csvRegion: { zh: '地区', en: 'Region' },
  csvSource: { zh: '来源', en: 'Source' },
  csvEngine: { zh: '搜索引擎', en: 'Search engine' },
  csvKeyword: { zh: '搜索词', en: 'Search keyword' },
  csvLabels: { zh: '标签', en: 'Labels' },
  csvNotes: { zh: '内部备注', en: 'Internal notes' },
  csvNote: { zh: '[备注 {time} {name}] {msg}', en: '[Note {time} {name}] {msg}' },
  csvName: { zh: '名称', en: 'Name' },
  csvVisitors: { zh: '访客数', en: 'Visitors' },
  csvVisits: { zh: '访问数', en: 'Visits' },
  csvConversations: { zh: '对话数', en: 'Conversations' },
  csvRated: { zh: '评价数', en: 'Rated' },
  csvAverageScore: { zh: '平均评分', en: 'Average rating' },
  csvAgentId: { zh: '客服编号', en: 'Agent id' },
  csvTransfers: { zh: '转接数', en: 'Transfers' },
  csvScoreCount: { zh: '{score} 分', en: '{score} stars' },
  csvOnline: { zh: '在线（秒）', en: 'Online (s)' },
  csvHidden: { zh: '隐身（秒）', en: 'Hidden (s)' },
  csvOffline: { zh: '离线（秒）', en: 'Offline (s)' },
  csvStateNow: { zh: '当前状态', en: 'State now' },
  csvAuditId: { zh: '编号', en: 'Entry' },
  csvAuditTime: { zh: '时间', en: 'Time' },
  csvAuditActor: { zh: '操作人', en: 'Actor' },
  csvAuditAction: { zh: '操作', en: 'Action' },
  csvAuditTarget: { zh: '对象', en: 'Target' },
  csvAuditDetail: { zh: '详情', en: 'Detail' },
  csvAuditIp: { zh: 'IP 地址', en: 'IP address' },
  stateOnline: { zh: '在线', en: 'Online' },
  stateHidden: { zh: '隐身', en: 'Hidden' },
  stateOffline: { zh: '离线', en: 'Offline' },
  // zod issue reasons
  reasonRequired: { zh: '必填', en: 'is required' },
  reasonType: { zh: '类型应为 {expected}', en: 'must be of type {expected}' },
  reasonTooShort: { zh: '长度不能少于 {min}', en: 'must be at least {min} long' },
  reasonTooLong: { zh: '长度不能超过 {max}', en: 'must be at most {max} long' },
  reasonTooSmall: { zh: '不能小于 {min}', en: 'must be at least {min}' },
  reasonTooBig: { zh: '不能大于 {max}', en: 'must be at most {max}' },
  reasonFormat: { zh: '格式不正确', en: 'has the wrong format' },
  reasonOneOf: { zh: '必须是 {values} 之一', en: 'must be one of {values}' },
  reasonUnknownKeys: { zh: '包含未知字段', en: 'has unknown keys' },
  reasonInvalid: { zh: '无效', en: 'is invalid' },
  reasonMissing: { zh: '所指的记录不存在', en: 'names something that does not exist' },
  reasonNameTaken: { zh: '已被使用', en: 'is already taken' },
  reasonCommonPassword: { zh: '过于常见，请换一个更难猜的密码', en: 'is too common, choose one that is harder to guess' },
  reasonControl: { zh: '含有不允许的控制字符', en: 'contains control characters' },
  reasonWrongPassword: { zh: '与当前密码不符', en: 'does not match the current password' },
} as const satisfies Record<string, Record<Lang, string>>;

export type MessageKey = keyof typeof messages;
export type MessageParams = Record<string, string | number>;

export function translate(lang: Lang, key: MessageKey, params: MessageParams = {}): string {
  return messages[key][lang].replace(/\{(\w+)\}/g, (whole, name: string) => {
    const value = params[name];
    return value === undefined ? whole : String(value);
  });
}
