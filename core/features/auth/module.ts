import { asClass } from 'awilix';
import { defineModule, type Registered } from '../../lib/app-module.ts';
import { authRoutes } from './auth-routes.ts';
import { accountSecurityRoutes } from './account-security-routes.ts';
import { oidcRoutes } from './oidc-routes.ts';
import { AuthService } from './auth-service.ts';
import { AccountSecurityService } from './account-security-service.ts';
import { OidcLoginService } from './oidc-login-service.ts';
import { AccountLockout } from './account-lockout.ts';
import { sessionRoutes } from './session-routes.ts';

/** Per request: bound to the request's EntityManager. */
const services = {
  auth: asClass(AuthService).scoped(),
  accountSecurity: asClass(AccountSecurityService).scoped(),
  oidcLogins: asClass(OidcLoginService).scoped(),
  accountLockout: asClass(AccountLockout).scoped(),
};

declare module '../../lib/app-module.ts' {
  interface Services extends Registered<typeof services> {}
}

export default defineModule({
  name: 'features/auth',
  services,
  routes: [authRoutes, accountSecurityRoutes, sessionRoutes, oidcRoutes],
});
