import {
  AppShell,
  Burger,
  Group,
  NavLink,
  ScrollArea,
  Text,
  ActionIcon,
  Tooltip,
  useMantineColorScheme,
  Button,
  Divider,
} from '@mantine/core';
import { useDisclosure, useMediaQuery } from '@mantine/hooks';
import { IconLogout, IconMoon, IconSearch } from '@tabler/icons-react';
import { spotlight } from '@mantine/spotlight';
import { Link, Outlet, useLocation, useNavigate } from 'react-router';
import { useTranslation } from 'react-i18next';
import { NAV } from './nav.ts';
import { useCan, useSession } from './use-session.ts';
import { api } from '../api/client.ts';
import { writeSession } from '../api/session.ts';
import { SearchSpotlight } from './SearchSpotlight.tsx';

/** The frame of every signed-in page: header, navigation (a drawer on narrow screens), the page. */
export function AppLayout() {
  const { t } = useTranslation();
  const [opened, { toggle, close }] = useDisclosure();
  // Below the `sm` breakpoint the navigation is a drawer; closed, it is only slid away, so it is
  // made inert: out of the tab order and of the accessibility tree.
  const narrow = useMediaQuery('(max-width: 47.99em)');
  const hidden = narrow === true && !opened;
  const session = useSession();
  const can = useCan();
  const location = useLocation();
  const navigate = useNavigate();
  const { toggleColorScheme } = useMantineColorScheme();
  const logout = async () => {
    await api.POST('/api/auth/logout', {}).catch(() => undefined);
    writeSession(null);
    void navigate('/login');
  };
  const groups = ['main', 'groupBackup', 'groupInfrastructure', 'groupAdmin'] as const;
  return (
    <AppShell
      header={{ height: 56 }}
      navbar={{ width: 240, breakpoint: 'sm', collapsed: { mobile: !opened } }}
      padding="md"
    >
      <AppShell.Header>
        <Group h="100%" px="md" justify="space-between" wrap="nowrap">
          <Group gap="sm" wrap="nowrap">
            <Burger opened={opened} onClick={toggle} hiddenFrom="sm" size="sm" aria-label={t('menu.open')} />
            <Text fw={700} component={Link} to="/">
              {t('appName')}
            </Text>
          </Group>
          <Group gap="xs" wrap="nowrap">
            <Button
              variant="default"
              size="xs"
              leftSection={<IconSearch size={14} />}
              onClick={() => spotlight.open()}
              aria-label={t('actions.search')}
              title={t('search.shortcut')}
            >
              <Text span size="xs" visibleFrom="xs">
                {t('actions.search')}
              </Text>
            </Button>
            <Tooltip label={t('theme.toggle')}>
              <ActionIcon variant="default" onClick={toggleColorScheme} aria-label={t('theme.toggle')}>
                <IconMoon size={16} />
              </ActionIcon>
            </Tooltip>
            <Text size="sm" visibleFrom="sm" data-testid="current-user">
              {session?.user.username} · {session?.user.role}
            </Text>
            <Tooltip label={t('actions.logout')}>
              <ActionIcon variant="default" onClick={() => void logout()} aria-label={t('actions.logout')}>
                <IconLogout size={16} />
              </ActionIcon>
            </Tooltip>
          </Group>
        </Group>
      </AppShell.Header>
      <AppShell.Navbar p="xs" aria-label={t('nav.main')} inert={hidden} aria-hidden={hidden || undefined}>
        <ScrollArea>
          {groups.map((group) => {
            const items = NAV.filter((n) => n.group === group && can(n.ability));
            if (!items.length) return null;
            return (
              <div key={group}>
                {group !== 'main' && (
                  <>
                    <Divider my={6} />
                    <Text size="xs" c="dimmed" fw={600} px="sm" py={4}>
                      {t(`nav.${group}`)}
                    </Text>
                  </>
                )}
                {items.map((n) => (
                  <NavLink
                    key={n.path}
                    component={Link}
                    to={n.path}
                    label={t(`nav.${n.label}` as 'nav.dashboard')}
                    onClick={close}
                    active={n.path === '/' ? location.pathname === '/' : location.pathname.startsWith(n.path)}
                  />
                ))}
              </div>
            );
          })}
        </ScrollArea>
      </AppShell.Navbar>
      <AppShell.Main>
        <Outlet />
      </AppShell.Main>
      <SearchSpotlight />
    </AppShell>
  );
}
