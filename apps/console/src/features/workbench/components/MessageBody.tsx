import { FileOutlined } from '@ant-design/icons';
import { Image } from 'antd';
import { useTranslation } from 'react-i18next';
import { type ChatMessage, fileLabel, linkify, ownUpload, safeUrl } from '../model';

/**
 * A message's content, always drawn as text: links are split out of the text and become anchors whose
 * text is the link itself; nothing a visitor writes is ever parsed as markup.
 */
export function MessageBody({ message }: { message: ChatMessage }) {
  const { t } = useTranslation();
  if (message.type === 'image') {
    const src = ownUpload(message.msg);
    if (src) return <Image rootClassName="wb-image" src={src} alt={t('workbench.message.image')} />;
    // An image from elsewhere is never fetched by itself: the agent sees its address and may open it.
    const href = safeUrl(message.msg);
    if (!href) return <span className="wb-text">{message.msg}</span>;
    return (
      <a className="wb-text" href={href} target="_blank" rel="noopener noreferrer nofollow" referrerPolicy="no-referrer">
        {message.msg}
      </a>
    );
  }
  if (message.type === 'file') {
    const href = safeUrl(message.msg);
    const name = fileLabel(message.msg);
    if (!href) return <span className="wb-text">{message.msg}</span>;
    return (
      <a className="wb-file" href={href} target="_blank" rel="noopener noreferrer" download={name}>
        <FileOutlined className="wb-file-icon" />
        <span className="wb-file-text">
          <span className="wb-file-name">{name}</span>
          <span className="wb-file-sub">{t('workbench.message.download')}</span>
        </span>
      </a>
    );
  }
  return (
    <span className="wb-text">
      {linkify(message.msg).map((part, index) =>
        part.href ? (
          // biome-ignore lint/suspicious/noArrayIndexKey: the parts of one text never move
          <a key={index} href={part.href} target="_blank" rel="noopener noreferrer nofollow">
            {part.text}
          </a>
        ) : (
          // biome-ignore lint/suspicious/noArrayIndexKey: the parts of one text never move
          <span key={index}>{part.text}</span>
        ),
      )}
    </span>
  );
}
