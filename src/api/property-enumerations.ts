/**
 * The values MITK's enumeration properties take on the wire (their `value` is one of these
 * names), for the client's checks and the reference workbench's decoding alike. The first of
 * each is the default MITK's mappers give a node.
 */
export const PROPERTY_ENUMERATIONS: Readonly<Record<string, readonly string[]>> = {
  RenderingModeProperty: [
    'LookupTable_LevelWindow_Color',
    'ColorTransferFunction_LevelWindow_Color',
    'LookupTable_Color',
    'ColorTransferFunction_Color',
  ],
  VtkResliceInterpolationProperty: ['Nearest', 'Linear', 'Cubic'],
  VtkInterpolationProperty: ['Gouraud', 'Flat', 'Phong'],
  VtkRepresentationProperty: ['Surface', 'Points', 'Wireframe'],
};
