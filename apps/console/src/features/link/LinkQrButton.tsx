import DownloadOutlined from '@ant-design/icons/DownloadOutlined';
import QrcodeOutlined from '@ant-design/icons/QrcodeOutlined';
import type { ChatLink } from '@parley/protocol';
import { useQuery } from '@tanstack/react-query';
import { Button, Modal, Spin, Tooltip, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { call } from '../../lib/api';

/** The QR-code button beside a link's chat URL: the URL as a QR code, to show and to download as a PNG. */
export function LinkQrButton({ link }: { link: ChatLink }) {
  const { t } = useTranslation();
  const [open, setOpen] = useState(false);
  const qr = useQuery({
    queryKey: ['link', 'qrcode', link.id, link.key],
    queryFn: () => call('GET /api/link/qrcode', { id: link.id }),
    enabled: open,
  });
  const title = t('link.qrTitle', { name: link.name });
  return (
    <>
      <Tooltip title={t('link.qrcode')}>
        <Button type="text" size="small" icon={<QrcodeOutlined />} aria-label={t('link.qrcode')} onClick={() => setOpen(true)} />
      </Tooltip>
      <Modal
        title={title}
        open={open}
        onCancel={() => setOpen(false)}
        destroyOnHidden
        width={400}
        footer={
          <Button type="primary" icon={<DownloadOutlined />} disabled={!qr.data} href={qr.data?.qrCode} download={`link-${link.key}.png`}>
            {t('link.download')}
          </Button>
        }
      >
        <div className="link-qr">
          {qr.data ? <img src={qr.data.qrCode} alt={title} width={240} height={240} /> : <Spin />}
          <Typography.Text type="secondary" copyable={{ text: link.url }} className="link-qr-url">
            {link.url}
          </Typography.Text>
        </div>
      </Modal>
    </>
  );
}
