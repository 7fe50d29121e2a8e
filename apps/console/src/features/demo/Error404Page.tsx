import { ErrorLink } from './ErrorLink';

/** Sample content (VITE_PARLEY_DEMO=1 only): leads to the console's 404 page. */
export default function Error404Page() {
  return <ErrorLink status={404} />;
}
