// Vehicle makes, for the vehicle fractions of chapter 87 (estimated prices, ISAN).
import { defineRecordSet, fields, int, str } from './define.js';

export const vehiculosMarcas = defineRecordSet({
  path: 'vehiculos-marcas',
  schema: 'VehiculosMarcasResponse',
  description: 'Vehicle makes, for the vehicle fractions of chapter 87 (estimated prices, ISAN).',
  fields: fields({
    FRACCION: str(10),
    CLAVEMARCA: str(5),
    MARCA: str(100),
    TIPO: [str(19), 'e.g. AUTOMOVIL, CAMION, MOTOCICLETA'],
    NICO: str(2),
    SYSID: int(),
  }),
  filters: [{ param: 'fraccion', rule: 'fraction', field: 'FRACCION', nicoField: 'NICO' }],
});
