import { Type } from '@sinclair/typebox';
import type { App } from '../../deps.ts';
import { errors } from '../../http/schemas.ts';
import { LoginBody, RegisterBody, UserView } from './schemas.ts';
import { createUser, getUser, login, userView } from './service.ts';

export default async function authRoutes(app: App) {
  const { db, auth, limiter, config } = app.deps;

  app.post(
    '/api/auth/register',
    {
      schema: {
        tags: ['Auth'],
        summary: 'Create a merchant account',
        body: RegisterBody,
        response: { 201: Type.Object({ message: Type.String(), user: UserView, token: Type.String() }), ...errors(400) },
      },
    },
    async (req, reply) => {
      const user = await createUser(db, req.body);
      const token = await auth.issueToken(user, config.jwtTtlSeconds);
      return reply.code(201).send({ message: 'Account created', user: userView(user), token });
    },
  );

  app.post(
    '/api/auth/login',
    {
      schema: {
        tags: ['Auth'],
        summary: 'Log in and receive a dashboard token (JWT)',
        body: LoginBody,
        response: {
          200: Type.Object({ message: Type.String(), token: Type.String(), expiresIn: Type.Integer({ description: 'seconds' }), user: UserView }),
          ...errors(400, 401, 429),
        },
      },
    },
    async (req) => {
      const user = await login(db, limiter, req.body.email, req.body.password, req.ip);
      const token = await auth.issueToken(user, config.jwtTtlSeconds);
      return { message: 'Logged in', token, expiresIn: config.jwtTtlSeconds, user: userView(user) };
    },
  );

  app.get(
    '/api/auth/me',
    {
      config: { auth: { token: true } },
      schema: { tags: ['Auth'], summary: 'The logged-in account', response: { 200: Type.Object({ user: UserView }), ...errors(401) } },
    },
    async (req) => ({ user: userView(await getUser(db, req.auth.userId)) }),
  );
}
