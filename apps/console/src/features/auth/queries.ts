import { ADMIN_ROLE, type UserInfo } from '@parley/protocol';
import { useQuery } from '@tanstack/react-query';
import { setSiteTimeZone } from '../../lib/format';
import { settings } from '../../lib/settings';
import { useSession } from '../../stores/session';
import { fetchUserInfo } from './api';

export const userInfoKey = ['userInfo'] as const;

/** Without login interception everyone is shown as an administrator (seed §4). */
const VIRTUAL_ADMIN: UserInfo = { username: 'admin', avatar: '', roles: [ADMIN_ROLE], permissions: [] };

export function useUserInfo() {
  const token = useSession((state) => state.token);
  return useQuery({
    queryKey: userInfoKey,
    queryFn: async () => {
      const info = settings.loginInterception ? await fetchUserInfo() : VIRTUAL_ADMIN;
      setSiteTimeZone(info.timezone);
      return info;
    },
    enabled: Boolean(token) || !settings.loginInterception,
    staleTime: Number.POSITIVE_INFINITY,
    retry: false,
  });
}
