import { ErrorLink } from './ErrorLink';

/** Sample content (VITE_PARLEY_DEMO=1 only): leads to the console's 403 page. */
export default function Error403Page() {
  return <ErrorLink status={403} />;
}
