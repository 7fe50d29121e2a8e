import { Drawer } from 'antd';
import { useTranslation } from 'react-i18next';
import { PersonalForm } from './PersonalForm';
import './personal.css';

/** The personal centre for agents whose role may not open its page: the same form, from the avatar menu. */
export function PersonalDrawer({ open, onClose }: { open: boolean; onClose: () => void }) {
  const { t } = useTranslation();
  return (
    <Drawer title={t('personal.title')} open={open} onClose={onClose} size={420} destroyOnHidden data-testid="personal-drawer">
      <PersonalForm onSaved={onClose} />
    </Drawer>
  );
}
