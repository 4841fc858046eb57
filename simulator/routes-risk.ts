/** Risk API (contract 4.2), envelope `data`. */
import { MINIMAL_FIELDS, pageEnvelope, parseFields, projectRecord } from './projection';
import type { RouteContext, RouteResult } from './routing';
import { methodNotAllowed, v1Error } from './routing';

/** Handles /api/v1/riskregister, /api/v1/risk/{id}, /api/v1/{reg}/risk, /api/v1/{board}/riskregister, /api/v1/{reg}/boards. */
export function handleRiskRoute(ctx: RouteContext): RouteResult | undefined {
  const { segments: s, tenant, view, query } = ctx;
  const fields = parseFields(query.get('fields'));
  const matched =
    (s.length === 1 && s[0] === 'riskregister') ||
    (s.length === 2 && (s[0] === 'risk' || s[1] === 'risk' || s[1] === 'riskregister' || s[1] === 'boards'));
  if (!matched) return undefined;
  if (ctx.method !== 'GET') return methodNotAllowed('v1', 'GET');
  const [a = '', b = ''] = s;

  if (s.length === 1) {
    return { status: 200, body: pageEnvelope('data', view.registers, query, (r) => projectRecord(r, fields, MINIMAL_FIELDS.register)) };
  }
  if (a === 'risk') {
    const risk = tenant.risk(b);
    if (!risk || !view.canSeeRisk(risk.id)) return v1Error(404, `Risk '${b}' does not exist`, ctx.vocabulary);
    return { status: 200, body: { data: [projectRecord(risk, fields, MINIMAL_FIELDS.risk)] } };
  }
  if (b === 'risk') {
    const register = tenant.register(a);
    if (!register || !view.canSeeRegister(register.id)) return v1Error(404, `Risk register '${a}' does not exist`, ctx.vocabulary);
    return { status: 200, body: pageEnvelope('data', tenant.risks(register.id), query, (r) => projectRecord(r, fields, MINIMAL_FIELDS.risk)) };
  }
  if (b === 'riskregister') {
    const board = tenant.board(a);
    const register = board && view.canSeeBoard(board.id) ? tenant.registerOfBoard(board.id) : undefined;
    if (!board || !register || !view.canSeeRegister(register.id)) {
      return v1Error(404, `No risk register is linked to board '${a}'`, ctx.vocabulary);
    }
    return { status: 200, body: { data: [{ ...projectRecord(register, fields, MINIMAL_FIELDS.register), board: board.ref }] } };
  }
  // {registerIdOrKey}/boards: paginated board references, no `fields`.
  const register = tenant.register(a);
  if (!register || !view.canSeeRegister(register.id)) return v1Error(404, `Risk register '${a}' does not exist`, ctx.vocabulary);
  const boards = tenant.boardsOfRegister(register.id).filter((board) => view.canSeeBoard(board.id));
  return { status: 200, body: pageEnvelope('data', boards.map((board) => board.ref), query, (r) => r) };
}
