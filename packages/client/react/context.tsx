'use client';

import { createContext, useContext, useMemo, type ReactNode } from 'react';
import { loadService, type LoadServiceOptions, type Service } from '../service';

// Pure: a page that imports only helpers drops it (and React) when bundling.
const ServiceContext = /* @__PURE__ */ createContext<Service | null>(null);

export interface ServiceProviderProps {
  publishableKey: string;
  /** Passed to loadService(); read once, with the key. */
  apiBaseUrl?: string;
  children?: ReactNode;
}

/** Supplies one client (per publishable key and origin) to everything below it. */
export function ServiceProvider({ publishableKey, apiBaseUrl, children }: ServiceProviderProps) {
  const service = useMemo(() => {
    const options: LoadServiceOptions = apiBaseUrl === undefined ? {} : { apiBaseUrl };
    return loadService(publishableKey, options);
  }, [publishableKey, apiBaseUrl]);
  return <ServiceContext.Provider value={service}>{children}</ServiceContext.Provider>;
}

/** The client of the nearest ServiceProvider; throws outside one. */
export function useService(): Service {
  const service = useContext(ServiceContext);
  if (!service) throw new Error('useService() must be used inside <ServiceProvider>: wrap your checkout in <ServiceProvider publishableKey="pk_…">.');
  return service;
}
