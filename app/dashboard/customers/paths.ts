import { dashboardBase, type DashboardMode } from '../access';

export const customerPath = (mode: DashboardMode, id: string) => `${dashboardBase(mode)}/customers/${encodeURIComponent(id)}`;
