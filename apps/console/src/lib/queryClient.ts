import { QueryClient } from '@tanstack/react-query';

/** Server data of the signed-in pages; the public pages never load it. */
export const queryClient = new QueryClient({
  defaultOptions: {
    // The HTTP client has already told the user; a failed read is retried only when asked again.
    queries: { retry: false, refetchOnWindowFocus: false, staleTime: 30_000 },
    mutations: { retry: false },
  },
});

// The session is over: forget every server answer of the previous user.
if (typeof window !== 'undefined') window.addEventListener('session-reset', () => queryClient.clear());
