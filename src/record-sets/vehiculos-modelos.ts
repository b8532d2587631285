// Vehicle models by make and model year, with the estimated price customs checks the declared value against.
import { date8, dec, defineRecordSet, fields, int, str } from './define.js';

export const vehiculosModelos = defineRecordSet({
  path: 'vehiculos-modelos',
  schema: 'VehiculosModelosResponse',
  description: 'Vehicle models by make and model year, with the estimated price customs checks the declared value against.',
  fields: fields({
    FRACCION: str(10),
    CLAVEMARCA: str(5),
    MARCA: str(100),
    MODELO: str(100),
    ANIOMODELO: int(),
    TIPOVEHICULO: str(1),
    PRECIOESTIMADO: dec(13, 2),
    CLAVEMONEDA: str(3),
    DOF: date8(),
    NICO: str(2),
    SYSID: int(),
  }),
  filters: [{ param: 'fraccion', rule: 'fraction', field: 'FRACCION', nicoField: 'NICO' }],
});
