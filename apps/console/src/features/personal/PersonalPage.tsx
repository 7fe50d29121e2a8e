import { Card } from 'antd';
import { useTranslation } from 'react-i18next';
import { PersonalForm } from './PersonalForm';
import './personal.css';

/** `/personal/personal`: the personal centre (seed §2). */
export default function PersonalPage() {
  const { t } = useTranslation();
  return (
    <Card title={t('personal.title')} className="personal-card">
      <PersonalForm />
    </Card>
  );
}
