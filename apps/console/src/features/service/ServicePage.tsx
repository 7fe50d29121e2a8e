export { default } from '../placeholder/NotAvailablePage';
